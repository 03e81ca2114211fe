import { useEffect, useState } from "preact/hooks";
import { PUSH_EVENT_KINDS, type PushEventKind, type PushSubscription, type PushSubscriptionList } from "../../../schemas/push.ts";
import { api } from "../shared/api.ts";
import { ConfirmButton } from "../shared/confirm-button.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

/** This browser's subscription, as the server knows it (its id), kept beside the token. */
const THIS_DEVICE_KEY = "atrium.pushSubscriptionId";

const KIND_LABELS: Record<PushEventKind, string> = {
  question: "An agent asks a question",
  plan: "A plan waits for approval",
  turn: "A long turn ends",
  failed: "A turn fails",
};

/** Why this browser cannot take pushes, if it cannot: a service worker and the Push API need a secure context. */
function unsupportedReason(): string | null {
  if (!isSecureContext) return "Notifications need the console opened over https (docs/remote-access.md) or on this machine.";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return "This browser cannot show notifications.";
  return null;
}

const base64UrlBytes = (value: string) => Uint8Array.from(atob(value.replace(/-/g, "+").replace(/_/g, "/")), (char) => char.charCodeAt(0));

/** What this browser is, for the list of devices (the user can tell a phone from a laptop). */
function deviceName(): string {
  const agent = navigator.userAgent;
  const system = /Android/.test(agent)
    ? "Android"
    : /iPhone|iPad/.test(agent)
      ? "iOS"
      : /Mac/.test(agent)
        ? "macOS"
        : /Windows/.test(agent)
          ? "Windows"
          : "Linux";
  const browser = /Firefox\//.test(agent)
    ? "Firefox"
    : /Edg\//.test(agent)
      ? "Edge"
      : /Chrome\//.test(agent)
        ? "Chrome"
        : /Safari\//.test(agent)
          ? "Safari"
          : "a browser";
  return `${browser} on ${system}`;
}

/** Asks the user (from their tap, never on load), subscribes with the browser's push service, and tells the server. */
async function subscribeThisDevice(): Promise<PushSubscription> {
  if ((await Notification.requestPermission()) !== "granted") {
    throw new Error("Notifications are blocked for this site: allow them in the browser's site settings, then try again.");
  }
  const registration = await navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready);
  const { publicKey } = await api<{ publicKey: string }>("GET", "/v1/push/vapid-key");
  let subscription: globalThis.PushSubscription;
  try {
    subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlBytes(publicKey) });
  } catch (failure) {
    throw new Error(`The browser's push service did not take the subscription: ${(failure as Error).message}`);
  }
  const created = await api<PushSubscription>("POST", "/v1/push/subscriptions", { subscription: subscription.toJSON(), name: deviceName() });
  localStorage.setItem(THIS_DEVICE_KEY, created.id);
  return created;
}

function DeviceRow({ subscription, thisDevice, onChanged }: { subscription: PushSubscription; thisDevice: boolean; onChanged: () => void }) {
  const action = useAction();
  // Shown switched at once; put back if the server refuses.
  const [events, setEvents] = useState(subscription.events);
  useEffect(() => setEvents(subscription.events), [subscription.events]);
  const toggle = (kind: PushEventKind, on: boolean) => {
    const wanted = on ? [...events, kind] : events.filter((each) => each !== kind);
    setEvents(wanted);
    void action.run(async () => {
      try {
        await api("PATCH", `/v1/push/subscriptions/${subscription.id}`, { events: wanted });
      } catch (failure) {
        setEvents(subscription.events);
        throw failure;
      }
      onChanged();
    });
  };
  const remove = () =>
    action.run(async () => {
      await api("DELETE", `/v1/push/subscriptions/${subscription.id}`);
      if (thisDevice) {
        localStorage.removeItem(THIS_DEVICE_KEY);
        await (await navigator.serviceWorker.getRegistration())?.pushManager.getSubscription().then((kept) => kept?.unsubscribe());
      }
      onChanged();
    });
  return (
    <li class="push-device" data-subscription={subscription.id}>
      <strong>{subscription.name ?? subscription.endpointOrigin}</strong>
      {thisDevice && <span class="badge">This device</span>}
      {subscription.lastError && <p class="error">The last push failed: {subscription.lastError}</p>}
      <fieldset class="push-kinds">
        <legend class="visually-hidden">What {subscription.name ?? "this device"} is told</legend>
        {PUSH_EVENT_KINDS.map((kind) => (
          <label key={kind} class="check">
            <input type="checkbox" checked={events.includes(kind)} disabled={action.busy} onChange={(event) => toggle(kind, event.currentTarget.checked)} />
            {KIND_LABELS[kind]}
          </label>
        ))}
      </fieldset>
      <ConfirmButton
        verb="Stop notifications on"
        name={subscription.name ?? "this device"}
        note="The device is told nothing more; Notify me on this device starts again."
        small
        busy={action.busy}
        onConfirm={() => void remove()}
      />
      <Alert error={action.error} />
    </li>
  );
}

/**
 * Notifications: this browser subscribes from a button (the permission is asked then, never on load),
 * and every device of this token is listed with what it is told, each kind switched on or off.
 */
export function PushNotifications() {
  const [list, setList] = useState<PushSubscription[] | null>(null);
  const action = useAction();
  const read = () => action.run(async () => setList((await api<PushSubscriptionList>("GET", "/v1/push/subscriptions")).subscriptions));
  useEffect(() => void read(), []);
  const unsupported = unsupportedReason();
  const thisDevice = localStorage.getItem(THIS_DEVICE_KEY);
  const subscribed = list?.some((subscription) => subscription.id === thisDevice) ?? false;
  return (
    <div class="push-notifications">
      <p class="quiet">Be told on this device when an agent needs you, while the console is closed or the phone is locked.</p>
      {unsupported ? (
        <p class="quiet">{unsupported}</p>
      ) : (
        !subscribed && (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                await subscribeThisDevice();
                await read();
              })
            }
          >
            Notify me on this device
          </button>
        )
      )}
      <Alert error={action.error} />
      {list && list.length > 0 && (
        <ul class="push-devices" aria-label="Devices told">
          {list.map((subscription) => (
            <DeviceRow key={subscription.id} subscription={subscription} thisDevice={subscription.id === thisDevice} onChanged={() => void read()} />
          ))}
        </ul>
      )}
    </div>
  );
}
