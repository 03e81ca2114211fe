/**
 * What a plugin's pane may do, as a sandbox: without `allow-same-origin` it gets an opaque origin,
 * though served from Atrium's, so it cannot read the console's storage (where its token is) or reach
 * into the console's window. The server sends it as a CSP header; the console's frame sets it too.
 */
export const PANE_SANDBOX_FLAGS = "allow-scripts allow-forms allow-popups allow-modals allow-downloads";
