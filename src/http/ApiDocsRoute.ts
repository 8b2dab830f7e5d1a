/**
 * The API reference at /docs: Effect's Swagger UI page for the API, built at its first request
 * instead of at start. Swagger UI's script and stylesheet are about 5 MB of text that the
 * service would otherwise hold from start to stop for a page few requests ask for
 * (docs/benchmarks.md, "Third round"). The page and its policy (ApiDocsPolicy) are as before.
 */
import { Effect, Layer, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiSwagger } from "effect/http-api"

import { Api } from "../api/Api.js"

const path = "/docs"

export const ApiDocsRoute = Layer.effectDiscard(Effect.gen(function*() {
  const router = yield* HttpRouter.HttpRouter
  const scope = yield* Effect.scope
  // Swagger's layer loads its assets when built: build it once, on the first request, for the
  // server's lifetime, and hand every request to the router it makes.
  const swagger = yield* Effect.cached(
    HttpRouter.toHttpEffect(HttpApiSwagger.layer(Api, { path })).pipe(Scope.provide(scope))
  )
  yield* router.add("GET", path, Effect.flatten(swagger))
}))
