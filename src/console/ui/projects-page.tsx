export function ProjectsPage() {
  return <section />;
}
