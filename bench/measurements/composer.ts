import type { BrowserContext, Page } from "playwright-core";
import { scriptedAgent } from "../lib/agents.ts";
import { type Atrium, conversationPages, prompt, runTurns, scratchSession } from "../lib/atrium.ts";
import { PHONE, signedIn } from "../lib/browser.ts";
import { measurement } from "../lib/measurement.ts";
import { below, paintAgainstBaseline } from "../lib/report.ts";
import { medianOf } from "../lib/stats.ts";

/** As many commands as Claude Code lists with a few skills. */
const COMMANDS = Array.from({ length: 40 }, (_, index) => ({ name: `command-${index}`, description: `What command ${index} does`, input: { hint: "args" } }));
const OFFLINE_PROMPTS = 50;

interface World {
  atrium: Atrium;
  context: BrowserContext;
  page: Page;
  sessionId: string;
  sentRounds: number;
}

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

/** The session's user prompts, oldest first. */
async function userTexts(atrium: Atrium, sessionId: string): Promise<string[]> {
  const texts: string[] = [];
  for await (const page of conversationPages(atrium, sessionId))
    texts.unshift(...page.conversation.filter((item) => item.role === "user").map((item) => item.text));
  return texts;
}

/** The next round's prompts, each naming its round. */
const nextPrompts = (world: World, kind: string) => {
  const round = ++world.sentRounds;
  return Array.from({ length: OFFLINE_PROMPTS }, (_, index) => `${kind} ${round}.${index + 1}`);
};

/** Duplicates and prompts out of order among `sent`, as the server's conversation holds them. */
async function arrival(world: World, sent: string[]) {
  await runTurns(world.atrium, world.sessionId, [], 120_000);
  const arrived = (await userTexts(world.atrium, world.sessionId)).filter((text) => sent.includes(text));
  return {
    duplicates: arrived.length - new Set(arrived).size,
    outOfOrder: arrived.join("\n") === sent.join("\n") ? 0 : 1,
    missing: sent.length - new Set(arrived).size,
  };
}

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
      return { atrium, context, page, sessionId, sentRounds: 0 };
    },
  },
  action: {
    what:
      "`/` typed into the empty composer: ms from its keydown to the frame after the one that first holds the suggestion list (a " +
      `requestAnimationFrame, then a task); then, with the context offline, ${OFFLINE_PROMPTS} prompts typed and sent, the network back, ` +
      "ms from reconnecting to the outbox empty in the page; the server's conversation then checked for each once, in order.",
    async run(world) {
      const suggestMs = await typed(world.page, "/", '[role="listbox"]');
      const sent = nextPrompts(world, "offline");
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
      return { suggestMs, drainMs, ...(await arrival(world, sent)) };
    },
  },
  baseline: {
    what:
      "a letter typed into the empty composer, to the frame after the one where the Send button is enabled (its render), the same way; " +
      `and the same ${OFFLINE_PROMPTS} prompts POSTed one after another from the bench process, ms for all.`,
    async run(world) {
      const letterMs = await typed(world.page, "a", 'button[type="submit"]:not([disabled])');
      const sent = nextPrompts(world, "direct");
      const started = performance.now();
      for (const text of sent) await prompt(world.atrium, world.sessionId, text);
      const postMs = performance.now() - started;
      if ((await arrival(world, sent)).missing > 0) throw new Error("a prompt POSTed directly did not arrive");
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
      { label: "duplicates, all rounds", value: action.reduce((sum, round) => sum + round.duplicates, 0), unit: "count", target: below(1) },
      {
        label: "rounds out of order or missing one",
        value: action.filter((round) => round.outOfOrder + round.missing > 0).length,
        unit: "count",
        target: below(1),
      },
    ];
  },
});
