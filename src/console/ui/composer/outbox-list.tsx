import { cancelWaiting, useOutbox } from "./outbox.ts";

/**
 * The session's prompts kept on this device until the server has them ("waiting to send"), each can be
 * cancelled; one the server refused says why and can be taken back into the composer.
 */
export function OutboxList({ sessionId, takeBack }: { sessionId: string; takeBack: (text: string) => void }) {
  const waiting = useOutbox(sessionId);
  if (waiting.length === 0) return null;
  return (
    <section class="panel outbox" aria-label="Waiting to send">
      <h3>Waiting to send</h3>
      <ol class="queue">
        {waiting.map((entry) => (
          <li key={entry.seq} class="queued-prompt" data-outbox={entry.clientId}>
            <span class="queued-text">{entry.text}</span>
            {entry.refused ? <span class="error">Not sent: {entry.refused}</span> : <span class="quiet">Goes when the server can be reached.</span>}
            <span class="row-actions">
              {entry.refused && (
                <button
                  type="button"
                  class="quiet-button small"
                  onClick={() => {
                    takeBack(entry.text);
                    void cancelWaiting(entry.seq);
                  }}
                >
                  Edit
                </button>
              )}
              <button type="button" class="quiet-button small" onClick={() => void cancelWaiting(entry.seq)}>
                Cancel
              </button>
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
