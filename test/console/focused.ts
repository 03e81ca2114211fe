import type { Page } from "playwright-core";
import { until } from "../helpers/poll.ts";

/** What has the focus, as `tag: text` ("body: …" would mean it was lost). */
export const focused = (page: Page) =>
  page.evaluate<string>('(() => { const element = document.activeElement; return element.tagName.toLowerCase() + ": " + element.textContent.trim(); })()');

/** Waits until the focus is on `expected` (`tag: text`); fails with where it is otherwise. */
export const focusIs = (page: Page, expected: string) =>
  until(
    () => focused(page),
    (now) => now === expected,
    5_000,
  );
