// What `npm run workflows` prints of a respect run: one line per workflow (from respect's
// --json-output) and, for a failed run, only the failing steps and respect's account of them.
import { existsSync, readFileSync } from "node:fs";

/** The failing steps and respect's account of them; its whole output when that part is not found. */
export function failureReport(output: string): string {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const failedSteps = plain.split("\n").filter((line) => /^\s*✗ /.test(line));
  const start = plain.indexOf("Failed tests info");
  const end = plain.indexOf("Summary for", start);
  if (start < 0) return plain;
  return [...failedSteps, plain.slice(start, end < 0 ? undefined : end).trimEnd(), ""].join("\n");
}

export interface WorkflowResult {
  id: string;
  passed: boolean;
  detail?: string;
}

/** One result per workflow from respect's --json-output (its shape is read defensively). */
export function workflowResults(jsonFile: string): WorkflowResult[] {
  if (!existsSync(jsonFile)) return [];
  try {
    const json = JSON.parse(readFileSync(jsonFile, "utf8")) as { files?: Record<string, { executedWorkflows?: { workflowId?: string; status?: string; executedSteps?: unknown[]; totalTimeMs?: number }[] }> };
    return Object.values(json.files ?? {}).flatMap((f) =>
      (f.executedWorkflows ?? []).map((w) => ({
        id: String(w.workflowId ?? "?"),
        passed: w.status === "success",
        detail: [w.executedSteps ? `${w.executedSteps.length} steps` : "", w.totalTimeMs !== undefined ? `${(w.totalTimeMs / 1000).toFixed(1)} s` : ""].filter(Boolean).join(", ") || undefined,
      })),
    );
  } catch {
    return [];
  }
}
