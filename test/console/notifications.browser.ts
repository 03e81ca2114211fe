import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Project } from "../../src/schemas/projects.ts";
import type { PushPayload, PushSubscription, PushSubscriptionList } from "../../src/schemas/push.ts";
import type { Session } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { LocalPushService, PushBrowser } from "../helpers/push-service.ts";

// Push notifications end to end: the server encrypts a push to a device (a loopback push service and
// the test's own browser keys stand in for the vendor's service), and the console's service worker
// shows it when it arrives, delivered over CDP as a browser's push service delivers it.
let atrium: ConsoleUnderTest;
let push: LocalPushService;

beforeAll(async () => {
  atrium = await startConsole();
  push = new LocalPushService();
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  await push?.stop();
});

interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  data: unknown;
}

describe("notifications in the console", () => {
  test("the settings list the devices told and switch what each is told; a question the server pushes is shown by the service worker, and a tap opens the session", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/settings");
    await page.context().grantPermissions(["notifications"], { origin: atrium.serve.url });
    const device = new PushBrowser();
    const subscription = await atrium.api<PushSubscription>("POST", "/v1/push/subscriptions", {
      subscription: device.subscription(push.endpoint("phone")),
      name: "Ada's phone",
    });
    await page.reload();
    const row = page.locator(`[data-subscription="${subscription.id}"]`);
    await row.locator("strong", { hasText: "Ada's phone" }).waitFor();
    await row.getByLabel("A long turn ends").uncheck();
    const listed = await until(
      () => atrium.api<PushSubscriptionList>("GET", "/v1/push/subscriptions"),
      (list) => !list.subscriptions[0]!.events.includes("turn"),
    );
    expect(listed.subscriptions[0]!.events).toEqual(["question", "plan", "failed"]);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, "console-notifications-phone");

    // A session asks; the server pushes it, encrypted to the device.
    const project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Demo" });
    const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title: "Fix the port" });
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "/ask" });
    const [received] = await push.waitFor("phone");
    const payload = JSON.parse(device.decrypt(received!.body)) as PushPayload;
    expect(payload).toMatchObject({ kind: "question", sessionId: session.id, title: "Demo · Fix the port", url: `/#/sessions/${session.id}` });

    // Delivered to the console's service worker as the browser's push service would: it shows it.
    await page.evaluate("navigator.serviceWorker.ready.then(() => true)");
    const cdp = await page.context().newCDPSession(page);
    const registration = new Promise<string>((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const ours = registrations.find((each) => each.scopeURL.startsWith(atrium.serve.url) && !each.isDeleted);
        if (ours) resolve(ours.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: atrium.serve.url, registrationId: await registration, data: JSON.stringify(payload) });
    const shown = await until(
      () =>
        page.evaluate<ShownNotification[]>(`navigator.serviceWorker.ready
          .then((ready) => ready.getNotifications())
          .then((list) => list.map(({ title, body, tag, data }) => ({ title, body, tag, data })))`),
      (list) => list.length > 0,
    );
    expect(shown).toEqual([{ title: payload.title, body: payload.body, tag: `session-${session.id}`, data: { url: `/#/sessions/${session.id}` } }]);
    expect(payload.body).toContain("hello.txt");

    // A tap on it opens the session in this window. No CDP call clicks a notification: the test hands
    // the shown notification to the worker's own handler as a click event (untrusted, so the worker
    // may not hold it open nor focus the window; it still navigates).
    const [worker] = page.context().serviceWorkers();
    await worker!.evaluate(
      `registration.getNotifications().then(([shown]) => dispatchEvent(new NotificationEvent("notificationclick", { notification: shown })))`,
    );
    await page.waitForURL(`${atrium.serve.url}/#/sessions/${session.id}`);
    await page.getByRole("heading", { name: "Fix the port" }).waitFor();
    expect(
      await until(
        () => page.evaluate<number>("navigator.serviceWorker.ready.then((ready) => ready.getNotifications()).then((list) => list.length)"),
        (count) => count === 0,
      ),
    ).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a browser that refuses the subscription (a private window takes no pushes) says why; the permission is asked only from the button", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/settings");
    const group = page.getByRole("region", { name: "Notifications" });
    const button = group.getByRole("button", { name: "Notify me on this device" });
    await button.waitFor();
    expect(await page.evaluate<string>("Notification.permission")).toBe("default");
    const before = (await atrium.api<PushSubscriptionList>("GET", "/v1/push/subscriptions")).subscriptions.length;
    await page.context().grantPermissions(["notifications"], { origin: atrium.serve.url });
    await button.click();
    // A test's browser context is incognito, where Chromium takes no push subscription.
    const alert = group.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toStartWith("The browser's push service did not take the subscription: ");
    expect((await atrium.api<PushSubscriptionList>("GET", "/v1/push/subscriptions")).subscriptions.length).toBe(before);
    await button.waitFor();
    // Chromium says so in the console itself; nothing else went wrong.
    expect(problems.filter((problem) => !problem.startsWith("Chrome currently does not support the Push API in incognito mode"))).toEqual([]);
    await page.context().close();
  });
});
