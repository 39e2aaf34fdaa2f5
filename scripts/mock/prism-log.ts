// Turns Prism's log (ten lines a request, timestamps, negotiation chatter) into what a client
// developer reads: one line per request with the answer's status, the problems Prism found in
// the request or in its own answer under it, and start-up as one line. Lines that are not Prism's
// usual format (a crash, a stack trace) pass through unchanged. Pure: no I/O.

export interface PrismLogFormatter {
  /** The lines to print for one line of Prism's output (often none). */
  push(line: string): string[];
}

const ANSI = /\x1b\[[0-9;]*m/g;
// [6:11:30 PM] ›     [VALIDATOR] ✖  error     Request body must NOT have additional properties
// [6:11:30 PM] › [HTTP SERVER] get /discovery-chain/web ℹ  info      Request received
const PRISM_LINE = /^\[[^\]]*\] › \s*\[([A-Z ]+)\] (?:([a-z]+) (\S+) )?\S\s+(info|success|warning|error|fatal|awaiting|start|debug|trace|note|pending|complete)\s+(.*)$/;
const ROUTE = /^(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE)\s+https?:\/\//;

export function prismLogFormatter(): PrismLogFormatter {
  let routes = 0;
  /** The request being answered: its problems wait for its status line. */
  let request: { label: string; problems: string[]; answered: boolean } | undefined;

  return {
    push(raw: string): string[] {
      const line = raw.replace(ANSI, "").trimEnd();
      const parsed = PRISM_LINE.exec(line);
      if (!parsed) return line ? [raw] : [];
      const component = parsed[1]!.trim();
      const [method, path, level, message] = [parsed[2], parsed[3], parsed[4]!, parsed[5]!];

      if (component === "CLI") {
        if (level === "awaiting") return [];
        if (level === "info" && ROUTE.test(message)) {
          routes++;
          return [];
        }
        const listening = /^Prism is listening on (\S+)/.exec(message);
        if (listening) return [`listening on ${listening[1]} (${routes} operation${routes === 1 ? "" : "s"})`];
        return [`${level}: ${message}`];
      }

      if (component === "HTTP SERVER") {
        const label = `${(method ?? "").toUpperCase()} ${path ?? ""}`.trim();
        if (message === "Request received") {
          request = { label, problems: [], answered: false };
          return [];
        }
        const failed = /^Request terminated with error: (?:\S+: )?(.*)$/.exec(message);
        if (failed) {
          request = undefined;
          return [`${label} → error: ${failed[1]}`];
        }
        return level === "info" || level === "success" ? [] : [`${label} ${level}: ${message}`];
      }

      const responding = /^> Responding with "(\d{3})"$/.exec(message);
      if (responding) {
        if (!request) return [`→ ${responding[1]}`];
        request.answered = true;
        return [`${request.label} → ${responding[1]}`, ...request.problems.map((p) => `  ${p}`)];
      }

      if (component === "VALIDATOR" && (level === "error" || level === "warning")) {
        if (message === "Request did not pass the validation rules") return [];
        const violation = /^Violation: (\S+) (.*)$/.exec(message);
        // Prism repeats each request problem after the answer as "Violation: request...".
        if (violation && violation[1]!.startsWith("request")) return [];
        const text = `${level === "error" ? "✖" : "⚠"} ${violation ? `${violation[1]}: ${violation[2]}` : message}`;
        if (!request) return [text];
        // A problem with Prism's own answer comes after the status line: print it at once.
        if (request.answered) return [`  ${text}`];
        if (!request.problems.includes(text)) request.problems.push(text);
        return [];
      }
      if (level === "error" || level === "fatal" || level === "warning") return [`${component.toLowerCase()} ${level}: ${message}`];
      return [];
    },
  };
}
