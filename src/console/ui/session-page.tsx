export function SessionPage({ sessionId }: { sessionId: string }) {
  return <section data-session={sessionId} />;
}
