import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { percentile, ratio } from "./stats.ts";

export type Unit = "ratio" | "req/s" | "ms" | "B" | "KiB" | "MiB" | "%" | "fps" | "s" | "count" | "chunks/s" | "turns/s" | "events/s" | "ns/B";

export interface Target {
  comparison: "<" | ">=";
  value: number;
  /** A gated target that fails, or whose figure is missing, makes the whole run fail (exit 1). */
  gate?: boolean;
}

/** Targets as the figures state them: under `value` (a gate when `gate`), or at least `value`. */
export const below = (value: number, gate?: true): Target => ({ comparison: "<", value, ...(gate ? { gate } : {}) });
export const atLeast = (value: number): Target => ({ comparison: ">=", value });

export interface Figure {
  label: string;
  /** NaN when an input was missing (a comparator not installed, a start that never answered): printed n/a. */
  value: number;
  unit: Unit;
  /** Figures without a target are context for the ones with one. */
  target?: Target;
}

export interface MeasurementResult {
  /** What was seeded, what was measured against what, in how many rounds: printed under the table. */
  method: string;
  figures: Figure[];
  details: unknown;
}

/** A page-load time's p50 (the target's) and p95, the baseline's, and their ratios: the rows a paint measurement opens with. */
export function paintAgainstBaseline(
  names: { action: string; baseline: string; ratio: string },
  action: (number | null)[],
  baseline: (number | null)[],
  target: Target,
): Figure[] {
  const [p50, p95, baseline50, baseline95] = [percentile(action, 50), percentile(action, 95), percentile(baseline, 50), percentile(baseline, 95)];
  return [
    { label: `${names.action}, p50`, value: p50, unit: "ms", target },
    { label: `${names.action}, p95`, value: p95, unit: "ms" },
    { label: `${names.baseline}, p50 (baseline)`, value: baseline50, unit: "ms" },
    { label: `${names.baseline}, p95`, value: baseline95, unit: "ms" },
    { label: `ratio p50, ${names.ratio}`, value: ratio(p50, baseline50), unit: "ratio" },
    { label: "ratio p95", value: ratio(p95, baseline95), unit: "ratio" },
  ];
}

export type Outcome = { name: string; result: MeasurementResult } | { name: string; error: string };

/** A figure with a target that is missing is "n/a": never a pass. */
export type Verdict = "PASS" | "FAIL" | "n/a" | "info";

function verdictOf(figure: Figure): Verdict {
  if (!figure.target) return "info";
  if (!Number.isFinite(figure.value)) return "n/a";
  const { comparison, value } = figure.target;
  return (comparison === "<" ? figure.value < value : figure.value >= value) ? "PASS" : "FAIL";
}

/** Decimals by unit; ms get two under 10. */
const DECIMALS: Partial<Record<Unit, number>> = { KiB: 1, MiB: 1, fps: 1, s: 1, "turns/s": 1, "ns/B": 1 };

function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return "n/a";
  if (unit === "ratio") return value.toFixed(3);
  if (unit === "count") return Math.round(value).toLocaleString("en-US");
  if (unit === "ms") return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  const decimals = DECIMALS[unit];
  return `${decimals === undefined ? Math.round(value).toLocaleString("en-US") : value.toFixed(decimals)} ${unit}`;
}

function rowsOf(outcome: Outcome): string[][] {
  if ("error" in outcome) return [[outcome.name, "did not complete", "", "ERROR"]];
  return outcome.result.figures.map((figure, index) => [
    index === 0 ? outcome.name : "",
    `${figure.label}: ${formatValue(figure.value, figure.unit)}`,
    figure.target ? `${figure.target.comparison} ${formatValue(figure.target.value, figure.unit)}${figure.target.gate ? " (gate)" : ""}` : "",
    verdictOf(figure),
  ]);
}

export function renderTable(outcomes: Outcome[]): string {
  const rows = [["Measurement", "Figure", "Target", "Result"], ...outcomes.flatMap(rowsOf)];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(rows[0]!), widths.map((width) => "-".repeat(width)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

/** The method notes and errors, which the table has no room for. */
export function renderNotes(outcomes: Outcome[]): string {
  return outcomes.map((outcome) => `${outcome.name}: ${"error" in outcome ? `ERROR ${outcome.error}` : outcome.result.method}`).join("\n\n");
}

/** bench/results/ is git-ignored: figures belong to a machine and a moment, not to the source. */
export function writeJsonReport(report: Record<string, unknown>): string {
  const dir = join(import.meta.dir, "..", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replaceAll(":", "-")}.json`);
  // Three decimals are more than any of these figures can vouch for.
  const rounded = (_key: string, value: unknown) => (typeof value === "number" && !Number.isInteger(value) ? Math.round(value * 1000) / 1000 : value);
  writeFileSync(file, `${JSON.stringify(report, rounded, 2)}\n`);
  return file;
}

/** Gated figures that failed or are missing, and targets whose figure is missing, as "measurement: label (verdict)". */
export function failedTargets(outcomes: Outcome[]): { gates: string[]; missing: string[] } {
  const of = (keep: (figure: Figure) => boolean) =>
    outcomes.flatMap((outcome) =>
      "result" in outcome ? outcome.result.figures.filter(keep).map((figure) => `${outcome.name}: ${figure.label} (${verdictOf(figure)})`) : [],
    );
  return {
    gates: of((figure) => figure.target?.gate === true && verdictOf(figure) !== "PASS"),
    missing: of((figure) => !figure.target?.gate && verdictOf(figure) === "n/a"),
  };
}
