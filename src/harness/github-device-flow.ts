/** GitHub's OAuth device flow (RFC 8628), as OpenCode uses it to sign in to GitHub Copilot. */

export interface DeviceFlowEndpoints {
  /** https://github.com, or a GitHub Enterprise host. */
  baseUrl: string;
  clientId: string;
  scope: string;
}

export interface DeviceCode {
  deviceCode: string;
  userCode: string;
  verificationUrl: string;
  expiresInSeconds: number;
  intervalSeconds: number;
}

export type TokenPoll = { status: "pending"; intervalSeconds: number } | { status: "granted"; accessToken: string } | { status: "failed"; error: string };

const REQUEST_TIMEOUT_MS = 10_000;

async function postForm(url: string, form: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${new URL(url).host} answered ${response.status} without JSON`);
  }
  if (!body || typeof body !== "object") throw new Error(`${new URL(url).host} answered ${response.status} without a JSON object`);
  return body as Record<string, unknown>;
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined);
const seconds = (value: unknown, fallback: number): number => (typeof value === "number" && value > 0 ? value : fallback);

export async function requestDeviceCode(endpoints: DeviceFlowEndpoints): Promise<DeviceCode> {
  const body = await postForm(`${endpoints.baseUrl}/login/device/code`, { client_id: endpoints.clientId, scope: endpoints.scope });
  const deviceCode = text(body.device_code);
  const userCode = text(body.user_code);
  const verificationUrl = text(body.verification_uri);
  if (!deviceCode || !userCode || !verificationUrl) {
    throw new Error(text(body.error_description) ?? text(body.error) ?? "the device code answer was incomplete");
  }
  return { deviceCode, userCode, verificationUrl, expiresInSeconds: seconds(body.expires_in, 900), intervalSeconds: seconds(body.interval, 5) };
}

/** One poll of the token endpoint; `slow_down` lengthens the interval as the RFC asks. */
export async function pollDeviceToken(endpoints: DeviceFlowEndpoints, code: DeviceCode): Promise<TokenPoll> {
  const body = await postForm(`${endpoints.baseUrl}/login/oauth/access_token`, {
    client_id: endpoints.clientId,
    device_code: code.deviceCode,
    grant_type: "urn:ietf:params:oauth:grant-type:device_code",
  });
  const accessToken = text(body.access_token);
  if (accessToken) return { status: "granted", accessToken };
  if (body.error === "authorization_pending") return { status: "pending", intervalSeconds: code.intervalSeconds };
  if (body.error === "slow_down") return { status: "pending", intervalSeconds: seconds(body.interval, code.intervalSeconds + 5) };
  if (body.error === "expired_token") return { status: "failed", error: "the code expired before it was entered; start again" };
  if (body.error === "access_denied") return { status: "failed", error: "the sign-in was declined" };
  return { status: "failed", error: text(body.error_description) ?? text(body.error) ?? "the token answer was incomplete" };
}
