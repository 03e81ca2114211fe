export function SessionsPage() {
  return <section />;
}
