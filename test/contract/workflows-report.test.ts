// `npm run workflows` prints one line per workflow and, on failure, only what failed
// (scripts/workflows-report.ts), so that the summary is not buried under respect's full report.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { failureReport, workflowResults } from "../../scripts/workflows-report.ts";

const dir = mkdtempSync(path.join(tmpdir(), "workflows-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("workflow results", () => {
  it("are one per workflow from respect's JSON output", () => {
    const file = path.join(dir, "run.json");
    writeFileSync(
      file,
      JSON.stringify({
        files: { "a.arazzo.yaml": { executedWorkflows: [
          { workflowId: "first", status: "success", executedSteps: [{}, {}], totalTimeMs: 1234 },
          { workflowId: "second", status: "error", executedSteps: [{}] },
        ] } },
      }),
    );
    expect(workflowResults(file)).toEqual([
      { id: "first", passed: true, detail: "2 steps, 1.2 s" },
      { id: "second", passed: false, detail: "1 steps" },
    ]);
    expect(workflowResults(path.join(dir, "missing.json"))).toEqual([]);
  });

  it("report a failure with the failing steps and respect's account, not the whole run", () => {
    const output = [
      "  ✓ PUT /config - step write",
      "    ✓ success criteria check - $statusCode == 200",
      "  \x1b[31m✗ DELETE /config/{kind}/{name} - step deleteTooEarly\x1b[0m",
      "    ✗ success criteria check - $statusCode == 400",
      "  Failed tests info:",
      "    stepId - deleteTooEarly",
      "  Summary for a.arazzo.yaml",
      "  Workflows: 1 failed, 1 total",
    ].join("\n");
    const report = failureReport(output);
    expect(report).toContain("✗ DELETE /config/{kind}/{name} - step deleteTooEarly");
    expect(report).toContain("stepId - deleteTooEarly");
    expect(report).not.toContain("✓ PUT /config");
    expect(report).not.toContain("Summary for");
    expect(failureReport("something else broke")).toBe("something else broke");
  });
});
