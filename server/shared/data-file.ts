// Reads a JSON or YAML file given by an environment variable (YAML is a superset of JSON).
import { readFileSync } from "node:fs";
import { parse } from "yaml";

export function readDataFile(file: string, variable: string): unknown {
  try {
    return parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${variable}=${file}: ${(error as Error).message}`);
  }
}
