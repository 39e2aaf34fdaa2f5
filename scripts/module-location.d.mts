import type { BuildOptions, Plugin } from "esbuild";
export declare const moduleLocation: Plugin;
export declare function serverBundle(root: string, entry: string, outfile: string): BuildOptions;
export declare function upToDateBundle(root: string, entry: string, outfile: string): Promise<string>;
