import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"

import { JsonBodies } from "../api/JsonBodies.js"
import { UnsupportedMediaType } from "../domain/Errors.js"

/** Methods whose request may carry a body the platform would decode. */
const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** `application/json`, with parameters or not; no `Content-Type` at all reads as JSON too, as the platform does. */
const isJson = (contentType: string | undefined) => {
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  return mediaType === "" || mediaType === "application/json"
}

const refused = new UnsupportedMediaType({
  message: "The API takes JSON only: send the body as application/json"
})

export const JsonBodiesLive = Layer.succeed(
  JsonBodies,
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) =>
      bodyMethods.has(request.method) && !isJson(request.headers["content-type"]) ? Effect.fail(refused) : Effect.void
  )
)
