// Start-up of `npm start` (all three APIs, ready to answer): median of a few starts, with the
// moment each API printed its address.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { cpuOf, int, progress, QUICK, report, root, table, verdict } from "./lib.ts";

/** CPU time (ms) used so far by a process and all its descendants (npm, sh, tsx, node). */
function treeCpu(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const walk = (p: number) => {
    total += cpuOf(p) ?? 0;
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return total;
}

interface Start {
  total: number;
  /** ms after spawn at which each API printed its address line */
  apis: Record<string, number>;
  answered: number;
  /** CPU time of the whole process tree at the first answer (ms): what an idle machine would take at least. */
  cpu: number;
}

function startOnce(command: string, args: string[]): Promise<Start> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, MESH_PORT: "0", SECRETS_PORT: "0", SECRETS_CLUSTER_PORT: "0", ORG_PLATFORM_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const apis: Record<string, number> = {};
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} ${args.join(" ")} not ready in 60 s:\n${output}`)), 60_000);
    child.stdout!.on("data", async (chunk: Buffer) => {
      output += chunk.toString();
      for (const api of ["org-platform", "secrets", "mesh"]) {
        if (apis[api] === undefined && new RegExp(`^${api} `, "m").test(output)) apis[api] = Date.now() - started;
      }
      if (!output.includes("Ready.")) return;
      clearTimeout(timer);
      const total = Date.now() - started;
      // Ready means answering: one request to the mesh.
      const port = /^mesh.*http:\/\/127\.0\.0\.1:(\d+)/m.exec(output)?.[1];
      const response = await fetch(`http://127.0.0.1:${port}/v1/agent/self`);
      await response.arrayBuffer();
      const answered = Date.now() - started;
      const cpu = treeCpu(child.pid!);
      process.kill(-child.pid!, "SIGINT"); // npm and the server it started: the whole group
      child.once("exit", () => resolve({ total, apis, answered, cpu }));
    });
  });
}

export async function startupSection(): Promise<void> {
  const rounds = QUICK ? 1 : 3;
  const rows: (string | number)[][] = [];
  for (const [label, command, args] of [
    ["npm start", "npm", ["start", "--silent"]],
    ["node --import tsx server/main.ts", process.execPath, ["--import", "tsx", "server/main.ts"]],
  ] as const) {
    const starts: Start[] = [];
    for (let i = 0; i < rounds; i++) {
      progress(`startup: ${label} (${i + 1} of ${rounds})`);
      starts.push(await startOnce(command, [...args]));
    }
    starts.sort((a, b) => a.answered - b.answered);
    const median = starts[Math.floor(starts.length / 2)]!;
    rows.push([
      label,
      int(median.apis["org-platform"] ?? 0),
      int(median.apis.secrets ?? 0),
      int(median.apis.mesh ?? 0),
      int(median.total),
      `${int(median.answered)} ${verdict(median.answered < 1000)}`,
      int(median.cpu),
    ]);
  }
  report(
    `Start-up, ms after the command starts (median of ${rounds})`,
    table(["command", "org-platform listening", "secrets listening", "mesh listening", "Ready. printed", "first answer (target < 1,000)", "CPU ms used until then (all processes)"], rows),
  );
}
