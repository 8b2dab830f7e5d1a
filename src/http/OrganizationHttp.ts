import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { OrganizationProfile } from "../services/catalog/OrganizationProfile.js"

export const OrganizationHttp = HttpApiBuilder.group(Api, "organization", (handlers) =>
  Effect.gen(function*() {
    const organization = yield* OrganizationProfile
    return handlers
      .handle("get", () => organization.get())
      .handle("update", ({ path, payload }) => organization.update(path.id, payload))
  }))
