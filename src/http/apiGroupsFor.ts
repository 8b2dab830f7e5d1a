/**
 * Our API groups under an app's own HttpApi. The app adds our declaration to its own
 * (`HttpApi.make("my-app").add(MyGroup).addHttpApi(Api)`, which brings our groups with their
 * errors and middleware) and provides `apiGroupsFor(MyApi)` to `HttpApiBuilder.api(MyApi)`.
 *
 * A group's handlers layer is typed for the API it was declared in (`ApiGroup<"status-page", …>`),
 * while at run time it only adds its routes to the shared router: this retypes ours for the
 * app's API, once it has checked that the app's API holds every one of our groups (otherwise they
 * would be served without being in its OpenAPI document or its typed client).
 */
import type { HttpApi, HttpApiGroup } from "@effect/platform"
import { Effect, Layer } from "effect"

import { Api } from "../api/Api.js"
import { ApiHandlers } from "./Server.js"

/** The names of our API groups (`health`, `status`, `components`, …). */
export type ApiGroupName = HttpApiGroup.HttpApiGroup.Name<(typeof Api)["groups"][string]>

export const apiGroupsFor = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): Layer.Layer<
  HttpApiGroup.ApiGroup<Id, ApiGroupName>,
  Layer.Layer.Error<typeof ApiHandlers>,
  Layer.Layer.Context<typeof ApiHandlers>
> => {
  const handlers = ApiHandlers as unknown as Layer.Layer<
    HttpApiGroup.ApiGroup<Id, ApiGroupName>,
    Layer.Layer.Error<typeof ApiHandlers>,
    Layer.Layer.Context<typeof ApiHandlers>
  >
  const missing = Object.keys(Api.groups).filter((name) => !(name in api.groups))
  const lacking = missing.join(", ")
  return missing.length === 0 ? handlers : Layer.unwrapEffect(
    Effect.as(
      Effect.dieMessage(
        `apiGroupsFor: the API "${api.identifier}" lacks our groups ${lacking}; add them with .addHttpApi(Api)`
      ),
      handlers
    )
  )
}
