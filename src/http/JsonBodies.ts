import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"

import { JsonBodies } from "../api/JsonBodies.js"
import { UnsupportedMediaType } from "../domain/Errors.js"

/** Methods whose request may carry a body the platform would decode. */
const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"])

/**
 * `application/json`, with parameters or not. No `Content-Type` passes only without a body: a
 * page on another site can send a body with no type (a `Blob` without one) and no preflight,
 * which the platform would read as JSON.
 */
const isJson = (headers: Readonly<Record<string, string | undefined>>) => {
  const mediaType = (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  const hasBody = (headers["content-length"] ?? "0") !== "0" || headers["transfer-encoding"] !== undefined
  return mediaType === "application/json" || (mediaType === "" && !hasBody)
}

const refused = new UnsupportedMediaType({
  message: "The API takes JSON only: send the body as application/json"
})

export const JsonBodiesLive = Layer.succeed(
  JsonBodies,
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) => bodyMethods.has(request.method) && !isJson(request.headers) ? Effect.fail(refused) : Effect.void
  )
)
