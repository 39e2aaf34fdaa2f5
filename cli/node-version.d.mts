/** The versions that work, as package.json's engines says them. */
export declare const SUPPORTED: string;
/** Undefined when `version` ("20.19.2") is supported, else the sentence to print. */
export declare function nodeVersionProblem(version: string): string | undefined;
