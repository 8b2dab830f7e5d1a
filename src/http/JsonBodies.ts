import { Effect, Layer } from "effect"
import { Headers, HttpServerRequest } from "effect/http"

import { JsonBodies } from "../api/JsonBodies.js"
import { UnsupportedMediaType } from "../domain/Errors.js"

/** Methods whose request may carry a body the platform would decode. */
const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"])

const mediaTypeOf = (headers: Readonly<Record<string, string | undefined>>) =>
  (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()

/**
 * `application/json`, with parameters or not. No `Content-Type` passes only without a body: a
 * page on another site can send a body with no type (a `Blob` without one) and no preflight,
 * which the platform would read as JSON.
 */
const isJson = (headers: Readonly<Record<string, string | undefined>>) => {
  const mediaType = mediaTypeOf(headers)
  const hasBody = (headers["content-length"] ?? "0") !== "0" || headers["transfer-encoding"] !== undefined
  return mediaType === "application/json" || (mediaType === "" && !hasBody)
}

const refused = new UnsupportedMediaType({
  message: "The API takes JSON only: send the body as application/json"
})

export const JsonBodiesLive = Layer.succeed(
  JsonBodies,
  (httpEffect) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (bodyMethods.has(request.method) && !isJson(request.headers)) return yield* refused
      // A `Content-Type` with a blank media type (`;;;`) and no body passes as none: the platform
      // reads the empty body as JSON then (400 when the endpoint needs one), where it would
      // answer 415 in plain text, outside the error contract.
      const blankType = request.headers["content-type"] !== undefined && mediaTypeOf(request.headers) === ""
      if (bodyMethods.has(request.method) && blankType) {
        return yield* Effect.provideService(
          httpEffect,
          HttpServerRequest.HttpServerRequest,
          request.modify({ headers: Headers.remove(request.headers, "content-type") })
        )
      }
      return yield* httpEffect
    })
)
