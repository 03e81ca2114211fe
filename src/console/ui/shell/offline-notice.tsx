import { useReachable } from "../shared/connection.ts";

/** Said while the server cannot be reached (the page then came from the service worker's cache). */
export function OfflineNotice() {
  const reachable = useReachable();
  if (reachable) return null;
  return (
    <p class="offline-notice" role="status">
      Offline: the server cannot be reached. The console tries again by itself.
    </p>
  );
}
