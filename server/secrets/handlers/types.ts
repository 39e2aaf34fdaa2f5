// What a secrets handler is: parse the request, call the cluster, answer.
import type { Request, Response } from "express";
import type { SecretsCluster } from "../cluster.ts";

export type Handler = (cluster: SecretsCluster, req: Request, res: Response) => void | Promise<void>;

/** Answers 204 No Content, for operations that return no body. */
export function noContent(res: Response): void {
  res.status(204).end();
}

/** The service's standard response envelope around `data`, as the real system sends logical responses. */
export function envelope<T>(cluster: SecretsCluster, data: T) {
  return {
    request_id: cluster.newRequestId(),
    lease_id: "",
    renewable: false,
    lease_duration: 0,
    data,
    wrap_info: null,
    warnings: null,
    auth: null,
  };
}

/** The real system's answer for nothing there: 404 with an empty error list. */
export function nothing(res: Response): void {
  res.status(404).json({ errors: [] });
}
