import { useReachable } from "../shared/connection.ts";
import { useKeptShown } from "../shared/kept-reads.ts";

/** Said while the server cannot be reached (the page then came from the service worker's cache), and whether what is shown was kept on the device. */
export function OfflineNotice() {
  const reachable = useReachable();
  const keptShown = useKeptShown();
  if (reachable) return null;
  return (
    <p class="offline-notice" role="status">
      {keptShown
        ? "Offline: shown as this device kept it when last read. The console tries again by itself."
        : "Offline: the server cannot be reached. The console tries again by itself."}
    </p>
  );
}
