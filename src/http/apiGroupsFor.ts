/**
 * Our API groups under an app's own HttpApi. The app adds our declaration to its own
 * (`HttpApi.make("my-app").add(MyGroup).addHttpApi(Api)`, which brings our groups with their
 * errors and middleware) and provides `apiGroupsFor(MyApi)` to `HttpApiBuilder.layer(MyApi)`.
 *
 * A group's handlers layer is typed for the API it was declared in (`Service<"status-page", …>`),
 * while at run time it only adds its routes to the shared router: this retypes ours for the
 * app's API, once it has checked that the app's API holds every one of our groups (otherwise they
 * would be served without being in its OpenAPI document or its typed client).
 */
import { Effect, Layer } from "effect"
import type { HttpApi, HttpApiGroup } from "effect/http-api"

import { Api } from "../api/Api.js"
import { ApiHandlers } from "./Server.js"

/** The names of our API groups (`health`, `status`, `components`, …). */
export type ApiGroupName = keyof (typeof Api)["groups"] & string

export const apiGroupsFor = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): Layer.Layer<
  HttpApiGroup.Service<Id, ApiGroupName>,
  Layer.Error<typeof ApiHandlers>,
  Layer.Services<typeof ApiHandlers>
> => {
  const handlers = ApiHandlers as unknown as Layer.Layer<
    HttpApiGroup.Service<Id, ApiGroupName>,
    Layer.Error<typeof ApiHandlers>,
    Layer.Services<typeof ApiHandlers>
  >
  const missing = Object.keys(Api.groups).filter((name) => !(name in api.groups))
  const lacking = missing.join(", ")
  return missing.length === 0 ? handlers : Layer.unwrap(
    Effect.as(
      Effect.die(
        new Error(
          `apiGroupsFor: the API "${api.identifier}" lacks our groups ${lacking}; add them with .addHttpApi(Api)`
        )
      ),
      handlers
    )
  )
}
