import { useState } from "preact/hooks";
import { encode } from "uqr";
import type { ConsoleLink } from "../../../schemas/console.ts";
import { api } from "../shared/api.ts";
import { TextField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

const isLoopbackUrl = (url: string) => /^https?:\/\/(127\.|\[::1\]|localhost)/.test(url);

/** A QR code as one SVG path of unit squares (dark modules), on white, with its quiet zone. */
function QrCode({ text, label }: { text: string; label: string }) {
  const { data, size } = encode(text, { ecc: "M", border: 2 });
  const squares = data.flatMap((row, y) => row.flatMap((dark, x) => (dark ? [`M${x} ${y}h1v1h-1z`] : []))).join("");
  return (
    <svg class="qr-code" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={squares} fill="#000" />
    </svg>
  );
}

/**
 * "Open on your phone": a fresh one-time link, for a named device, as a QR code the phone's camera
 * opens; it signs that phone in with a token of its own (revocable with the others).
 */
export function PhoneSignIn() {
  const [device, setDevice] = useState("Phone");
  const [link, setLink] = useState<ConsoleLink | null>(null);
  const [chosen, setChosen] = useState(0);
  const action = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setLink(await api<ConsoleLink>("POST", "/v1/console/links", { deviceName: device }));
      setChosen(0);
    });
  };
  const url = link?.urls[chosen];
  return (
    <div class="phone-sign-in">
      <form class="inline-form" onSubmit={create}>
        <TextField label="Device" value={device} onValue={setDevice} />
        <button type="submit" disabled={action.busy || device.trim() === ""}>
          {link ? "New QR code" : "Show QR code"}
        </button>
      </form>
      <Alert error={action.error} />
      {link && url && (
        <div class="phone-link">
          <QrCode text={url} label={`QR code of a sign-in link for ${device}`} />
          <p>
            Scan it with the phone's camera before {new Date(link.expiresAt).toLocaleTimeString()}; it signs in once, as {device}.
          </p>
          {link.urls.length > 1 && (
            <label>
              Address{" "}
              <select value={chosen} onChange={(event) => setChosen(Number(event.currentTarget.value))}>
                {link.urls.map((each, index) => (
                  <option key={each} value={index}>
                    {new URL(each).host}
                  </option>
                ))}
              </select>
            </label>
          )}
          <p class="project-path">{url}</p>
          {isLoopbackUrl(url) && (
            <p class="error">
              This server listens on this machine only: a phone cannot open this address. Start it with --host and a certificate, or behind tailscale serve
              (docs/remote-access.md).
            </p>
          )}
        </div>
      )}
    </div>
  );
}
