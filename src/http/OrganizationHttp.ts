import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { OrganizationProfile } from "../services/catalog/OrganizationProfile.js"

export const OrganizationHttp = HttpApiBuilder.group(Api, "organization", (handlers) =>
  Effect.gen(function*() {
    const organization = yield* OrganizationProfile
    return handlers
      .handle("get", () => organization.get())
      .handle("update", ({ params, payload }) => organization.update(params.id, payload))
      // The one organization always exists: it cannot be missing between the read and the update.
      .handle("updateCurrent", ({ payload }) =>
        Effect.flatMap(organization.get(), (current) =>
          organization.update(current.id, payload)).pipe(
            Effect.catchTag("NotFound", Effect.die)
          ))
  }))
