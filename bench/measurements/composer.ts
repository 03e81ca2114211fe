import type { Page } from "playwright-core";
import { scriptedAgent } from "../lib/agents.ts";
import { type Atrium, prompt, runTurns, scratchSession } from "../lib/atrium.ts";
import { PHONE, signedIn } from "../lib/browser.ts";
import { measurement } from "../lib/measurement.ts";
import { below, paintAgainstBaseline } from "../lib/report.ts";
import { medianOf } from "../lib/stats.ts";

/** As many commands as Claude Code lists with a few skills. */
const COMMANDS = Array.from({ length: 40 }, (_, index) => ({ name: `command-${index}`, description: `What command ${index} does`, input: { hint: "args" } }));
const OFFLINE_PROMPTS = 50;

/** In the page: from the keydown of the next key to the frame after the one where `selector` first matches (a rAF, then a task). */
function timeNextKey(selector: string): Promise<number> {
  return new Promise((resolve) => {
    let down = Number.NaN;
    addEventListener("keydown", (event) => (down = event.timeStamp), { capture: true, once: true });
    const observer = new MutationObserver(() => {
      if (!document.querySelector(selector)) return;
      observer.disconnect();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - down)));
    });
    observer.observe(document, { childList: true, subtree: true, attributes: true });
  });
}

async function typed(page: Page, key: string, shown: string): Promise<number> {
  const field = page.getByLabel("Prompt", { exact: true });
  await field.fill("");
  await page.waitForTimeout(50);
  const timing = page.evaluate(timeNextKey, shown);
  await field.press(key);
  return timing;
}

/** A round's prompts, each naming its round. */
const promptsOf = (kind: string, round: number) => Array.from({ length: OFFLINE_PROMPTS }, (_, index) => `${kind} ${round}.${index + 1}`);

/**
 * Until the session is idle again. That the prompts arrive once each, in order, is the suite's to check (test/console/composer.browser.ts,
 * "prompts sent offline … reach the server once each, in order").
 */
const idle = (world: { atrium: Atrium; sessionId: string }) => runTurns(world.atrium, world.sessionId, [], 120_000);

export const composer = measurement({
  key: "composer",
  title: "Composer: `/` to the commands shown on a phone; 50 prompts sent offline, drained on reconnect",
  seed: {
    what:
      `the scripted ACP agent listing ${COMMANDS.length} slash commands and answering each prompt with one chunk; one session with a turn ` +
      `done (so its commands are kept), opened in Debian's headless Chromium at ${PHONE.width}×${PHONE.height}, its service worker running.`,
    async run(bench) {
      const agent = scriptedAgent(bench.tempDir("composer"), { "*": [{ chunk: "ok" }] }, { availableCommands: COMMANDS });
      const atrium = await bench.atrium({ agent });
      const sessionId = await scratchSession(atrium, agent.harness, "Composer");
      await runTurns(atrium, sessionId, ["hello"], 60_000);
      const context = await (await bench.browser()).context(PHONE, signedIn(atrium.token));
      const page = await context.newPage();
      await page.goto(`${atrium.url}/#/sessions/${sessionId}`);
      await page.getByLabel("Prompt", { exact: true }).waitFor();
      await page.waitForFunction("navigator.serviceWorker.ready.then(() => true)", undefined, { timeout: 30_000 });
      return { atrium, context, page, sessionId };
    },
  },
  action: {
    what:
      "`/` typed into the empty composer: ms from its keydown to the frame after the one that first holds the suggestion list (a " +
      `requestAnimationFrame, then a task); then, with the context offline, ${OFFLINE_PROMPTS} prompts typed and sent, the network back, ` +
      "ms from reconnecting to the outbox empty in the page.",
    async run(world, round) {
      const suggestMs = await typed(world.page, "/", '[role="listbox"]');
      const sent = promptsOf("offline", round);
      await world.context.setOffline(true);
      const field = world.page.getByLabel("Prompt", { exact: true });
      for (const text of sent) {
        await field.fill(text);
        await field.press("Control+Enter");
        await world.page.locator("#prompt:placeholder-shown").waitFor();
      }
      await world.page
        .locator(".outbox .queued-prompt")
        .nth(OFFLINE_PROMPTS - 1)
        .waitFor();
      const started = performance.now();
      await world.context.setOffline(false);
      await world.page.locator(".outbox").waitFor({ state: "detached", timeout: 120_000 });
      const drainMs = performance.now() - started;
      await idle(world);
      return { suggestMs, drainMs };
    },
  },
  baseline: {
    what:
      "a letter typed into the empty composer, to the frame after the one where the Send button is enabled (its render), the same way; " +
      `and the same ${OFFLINE_PROMPTS} prompts POSTed one after another from the bench process, ms for all.`,
    async run(world, round) {
      const letterMs = await typed(world.page, "a", 'button[type="submit"]:not([disabled])');
      const sent = promptsOf("direct", round);
      const started = performance.now();
      for (const text of sent) await prompt(world.atrium, world.sessionId, text);
      const postMs = performance.now() - started;
      await idle(world);
      return { letterMs, postMs };
    },
  },
  rounds: { warmup: 1, measured: 7 },
  figures({ action, baseline }) {
    return [
      ...paintAgainstBaseline(
        { action: "`/` to the commands shown", baseline: "a letter to its render shown", ratio: "suggestions / letter" },
        action.map((round) => round.suggestMs),
        baseline.map((round) => round.letterMs),
        below(100),
      ),
      { label: `${OFFLINE_PROMPTS} offline prompts drained after reconnecting, p50`, value: medianOf(action, (round) => round.drainMs), unit: "ms" },
      { label: `the same ${OFFLINE_PROMPTS} POSTed directly one by one, p50 (baseline)`, value: medianOf(baseline, (round) => round.postMs), unit: "ms" },
    ];
  },
});
