import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { MachineList, PairingCode } from "../../src/schemas/machines.ts";
import type { ServerInfo } from "../../src/schemas/system.ts";
import { type ApiClient, apiClient } from "../helpers/api-client.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole, type SecondServer, startSecondServer } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";

// The console's Machines page on the compiled server, paired with a second real server (the same
// binary, a data dir of its own, its own machineId) beside it on loopback.
let atrium: ConsoleUnderTest;
let here: ServerInfo;
let consoleApi: ApiClient;
let second: SecondServer;
let secondApi: ApiClient;

const SECOND_ID = "mch-second";

beforeAll(async () => {
  atrium = await startConsole();
  here = await atrium.api<ServerInfo>("GET", "/v1/info");
  consoleApi = apiClient(atrium.serve.url, atrium.adminToken());
  second = await startSecondServer(atrium.binary, "second");
  secondApi = second.api;
}, 120_000);

afterAll(async () => {
  await second?.stop();
  await atrium?.close();
});

const idsOn = async (client: ApiClient) => (await client.json<MachineList>("GET", "/v1/machines")).body.machines.map((machine) => machine.id);
const untilIds = (client: ApiClient, ids: string[]) =>
  until(
    () => idsOn(client),
    (listed) => JSON.stringify(listed) === JSON.stringify(ids),
  );

const card = (page: Page, name: string) => page.getByRole("list", { name: "Machines" }).getByRole("listitem", { name, exact: true });

/** Pairs through the form with the second machine's address and `code`. */
async function pairByForm(page: Page, code: string): Promise<void> {
  await page.getByLabel("Other machine's URL").fill(second.serve.url);
  await page.getByLabel("Pairing code", { exact: true }).fill(code);
  await page.getByRole("button", { name: "Pair", exact: true }).click();
}

async function unpairInPage(page: Page): Promise<void> {
  await card(page, "second").getByRole("button", { name: "Unpair second", exact: true }).click();
  const confirm = page.getByRole("button", { name: "Unpair second?" });
  expect(await idsOn(secondApi)).toEqual([SECOND_ID, here.machineId]);
  await confirm.click();
  await card(page, "second").waitFor({ state: "detached" });
}

describe("console machines", () => {
  for (const [label, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    test(`on a ${label}: pair by a code from the other machine (a wrong one refused), unpair, and be paired from it by a code made here, all seen live`, async () => {
      const { page, problems } = await atrium.openSignedIn(viewport, "/#/machines");
      const machines = page.getByRole("list", { name: "Machines" }).getByRole("listitem");
      await machines.first().getByText("This machine").waitFor();
      expect(await machines.count()).toBe(1);
      expect(await machines.first().getByText(here.machineId, { exact: true }).count()).toBe(1);

      // A wrong code: the other machine's 401 is shown, and the console stays signed in.
      await pairByForm(page, "WRONG-CODE2");
      await page.getByRole("alert").filter({ hasText: "the pairing code is wrong, used or expired" }).waitFor();
      expect(await page.evaluate(() => localStorage.getItem("atrium.token"))).toBe(atrium.adminToken());
      expect(await idsOn(consoleApi)).toEqual([here.machineId]);

      const code = (await secondApi.json<PairingCode>("POST", "/v1/machines/pairing-codes")).body.code;
      await pairByForm(page, code);
      await page.getByRole("status").filter({ hasText: "Paired with second." }).waitFor();
      await card(page, "second").getByText("Online", { exact: true }).waitFor();
      expect(await card(page, "second").getByText("admin", { exact: true }).count()).toBe(1);
      expect(await page.getByRole("alert").count()).toBe(0);
      expect(await page.getByLabel("Pairing code", { exact: true }).inputValue()).toBe("");

      await unpairInPage(page);
      expect(await idsOn(consoleApi)).toEqual([here.machineId]);
      await untilIds(secondApi, [SECOND_ID]);

      // The other way: a code made on this page, typed into the second machine, which appears here live.
      await page.getByRole("button", { name: "Make a pairing code" }).click();
      const shown = page.getByRole("status", { name: "This machine's pairing code" });
      await shown.waitFor();
      const madeHere = (await shown.textContent()) ?? "";
      expect(madeHere).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
      const timer = page.getByRole("timer");
      const firstReading = (await timer.textContent()) ?? "";
      expect(firstReading).toMatch(/^Expires in (10:00|9:[0-5]\d) \(used once\)\.$/);
      await until(
        () => timer.textContent(),
        (reading) => reading !== firstReading,
        3_000,
      );

      expect((await secondApi.json("POST", "/v1/machines/pair", { url: atrium.serve.url, code: madeHere })).status).toBe(201);
      await card(page, "second").getByText("Online", { exact: true }).waitFor();
      expect(await machines.count()).toBe(2);
      expect(await machines.first().getByText("This machine").count()).toBe(1);
      await screenshot(page, `console-machines-${label}`);

      // Removed on the second machine: it tells this one, and the card goes without a reload.
      expect((await secondApi.json("DELETE", `/v1/machines/${here.machineId}`)).status).toBe(200);
      await card(page, "second").waitFor({ state: "detached" });
      expect(await idsOn(consoleApi)).toEqual([here.machineId]);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }
});
