import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type Unit =
  | "ratio"
  | "req/s"
  | "ms"
  | "KiB"
  | "MiB"
  | "%"
  | "clients"
  | "runs"
  | "projects"
  | "harnesses"
  | "chunks/s"
  | "turns/s"
  | "sessions"
  | "items"
  | "s"
  | "events"
  | "servers"
  | "fps"
  | "requests";

export interface Target {
  comparison: "<" | ">=";
  value: number;
  /** A gated target that fails makes the whole run fail (exit 1): a regression, not a report. */
  gate?: boolean;
}

export interface Figure {
  label: string;
  value: number;
  unit: Unit;
  /** Figures without a target are context for the ones with one. */
  target?: Target;
}

export interface MeasurementResult {
  /** One sentence on how the figures were obtained, printed under the table. */
  method: string;
  figures: Figure[];
  details: Record<string, unknown>;
}

export type Outcome = { name: string; result: MeasurementResult } | { name: string; error: string };

export type Verdict = "PASS" | "FAIL" | "info";

export function verdictOf(figure: Figure): Verdict {
  if (!figure.target) return "info";
  const { comparison, value } = figure.target;
  const met = comparison === "<" ? figure.value < value : figure.value >= value;
  return met ? "PASS" : "FAIL";
}

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return "n/a";
  switch (unit) {
    case "ratio":
      return value.toFixed(3);
    case "req/s":
      return `${Math.round(value).toLocaleString("en-US")} req/s`;
    case "ms":
      return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
    case "KiB":
    case "MiB":
      return `${value.toFixed(1)} ${unit}`;
    case "%":
      return `${value.toFixed(0)} %`;
    case "fps":
      return `${value.toFixed(1)} fps`;
    default:
      return `${value} ${unit}`;
  }
}

function formatTarget(figure: Figure): string {
  return figure.target ? `${figure.target.comparison} ${formatValue(figure.target.value, figure.unit)}` : "";
}

function rowsOf(outcome: Outcome): string[][] {
  if ("error" in outcome) return [[outcome.name, "did not complete", "", "ERROR"]];
  return outcome.result.figures.map((figure, index) => [
    index === 0 ? outcome.name : "",
    `${figure.label}: ${formatValue(figure.value, figure.unit)}`,
    formatTarget(figure),
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
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join("\n");
}

/** The method notes and errors, which the table has no room for. */
export function renderNotes(outcomes: Outcome[]): string {
  const note = (outcome: Outcome) => ("error" in outcome ? `ERROR ${outcome.error}` : outcome.result.method);
  return outcomes.map((outcome) => `${outcome.name}: ${note(outcome)}`).join("\n");
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

/** The gated figures that failed, as "measurement: label" lines. */
export function failedGates(outcomes: Outcome[]): string[] {
  return outcomes.flatMap((outcome) =>
    "result" in outcome
      ? outcome.result.figures.filter((figure) => figure.target?.gate && verdictOf(figure) === "FAIL").map((figure) => `${outcome.name}: ${figure.label}`)
      : [],
  );
}
