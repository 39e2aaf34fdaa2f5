import type { Plugin } from "esbuild";
export declare const moduleLocation: Plugin;
