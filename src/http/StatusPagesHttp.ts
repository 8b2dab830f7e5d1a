import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { CurrentPrincipal } from "../domain/Auth.js"
import { Forbidden } from "../domain/Errors.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import type { StatusPageId } from "../domain/StatusPage.js"
import { StatusPages } from "../services/catalog/StatusPages.js"
import { answerPage } from "./PageLinks.js"

/**
 * An API key limited to some pages (`pageIds`) changes only those: another page, or a new one,
 * is 403 (docs/authentication.md, "API keys").
 */
const mayChange = (id: StatusPageId | undefined) =>
  Effect.flatMap(CurrentPrincipal, (principal) =>
    principal.method === "apiKey" && principal.pageIds !== null &&
      (id === undefined || !principal.pageIds.includes(id))
      ? Effect.fail(
        new Forbidden({
          message: id === undefined
            ? "This API key is limited to some status pages and cannot create one"
            : "This API key is limited to other status pages"
        })
      )
      : Effect.void)

export const StatusPagesHttp = HttpApiBuilder.group(Api, "statusPages", (handlers) =>
  Effect.gen(function*() {
    const pages = yield* StatusPages
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(pages.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("get", ({ params }) => pages.get(params.id))
      .handle("create", ({ payload }) => Effect.andThen(mayChange(undefined), pages.create(payload)))
      .handle("update", ({ params, payload }) => Effect.andThen(mayChange(params.id), pages.update(params.id, payload)))
      .handle("remove", ({ params }) => Effect.andThen(mayChange(params.id), pages.remove(params.id)))
  }))
