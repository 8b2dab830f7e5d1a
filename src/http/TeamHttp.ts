import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { CurrentPrincipal } from "../domain/Auth.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { Invitations } from "../services/team/Invitations.js"
import { TeamMembers } from "../services/team/TeamMembers.js"
import { answerPage } from "./PageLinks.js"

export const TeamHttp = HttpApiBuilder.group(Api, "team", (handlers) =>
  Effect.gen(function*() {
    const members = yield* TeamMembers
    const invitations = yield* Invitations
    return handlers
      .handle("listUsers", ({ query }) => Effect.flatMap(members.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("updateUser", ({ params, payload }) => members.update(params.id, payload))
      .handle("removeUser", ({ params }) => members.remove(params.id))
      .handle("listInvitations", ({ query }) =>
        Effect.flatMap(invitations.listOpen(pageRequest(query, adminPageBounds)), answerPage))
      // Sent by the key's creator when a key invites: the invitation names a person, not a key.
      .handle("invite", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          invitations.invite(payload, principal.userId)))
      .handle("revokeInvitation", ({ params }) =>
        invitations.revoke(params.id))
  }))
