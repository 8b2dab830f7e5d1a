import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { Invitation, InvitationId, Invite, TeamMember, UpdateTeamMember, UserPath } from "../domain/Team.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const lastOwner = "At least one enabled owner always remains: demoting, disabling or deleting the last one is " +
  "**409** `Conflict`."

/** The team's members and the invitations that bring new ones in (docs/authentication.md, "Team"). */
export class TeamApi extends HttpApiGroup.make("team")
  .add(
    HttpApiEndpoint.get("listUsers", "/users", {
      query: pageQueryFields(adminPageBounds),
      success: Schema.Array(TeamMember)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List the team's members",
        "Every member, oldest first, with `role` and whether they are `disabled`.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.patch("updateUser", "/users/:id", {
      params: UserPath,
      payload: UpdateTeamMember,
      success: TeamMember,
      error: [BadRequest, NotFound, Conflict]
    })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Change a member's role, or disable or enable them",
        "Takes `role` and/or `disabled`. Disabling ends the member's sessions at once and their API keys stop " +
          "working (they work again once the member is enabled); a disabled member cannot sign in. " + lastOwner
      ))
  )
  .add(
    HttpApiEndpoint.delete("removeUser", "/users/:id", {
      params: UserPath,
      success: HttpApiSchema.NoContent,
      error: [NotFound, Conflict]
    })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Delete a member",
        "Answers **204**: their sessions and API keys are deleted with them. The audit log keeps their name on " +
          "their entries. " + lastOwner
      ))
  )
  .add(
    HttpApiEndpoint.get("listInvitations", "/invitations", {
      query: pageQueryFields(adminPageBounds),
      success: Schema.Array(Invitation)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List open invitations",
        "Invitations not yet accepted, oldest first, expired ones included (their link no longer works).",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.post("invite", "/invitations", {
      payload: Invite,
      success: Invitation.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Conflict]
    })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Invite someone to the team",
        "Takes `{ email, role }` and answers **201**. A mail with a link `{PUBLIC_URL}/admin/invitation#<token>`, " +
          "valid 72 hours, goes out through the durable mail path (retried while SMTP is away). Opening it, the " +
          "invitee sets a name and password, or, when the address already has an account, signs in with it " +
          "and takes the invitation's role. Inviting the same address again replaces the open invitation and " +
          "its link. An address of an enabled member is **409** `Conflict`."
      ))
  )
  .add(
    HttpApiEndpoint.delete("revokeInvitation", "/invitations/:id", {
      params: Schema.Struct({ id: InvitationId }),
      success: HttpApiSchema.NoContent,
      error: NotFound
    })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Revoke an invitation",
        "Answers **204**; its link stops working at once. An unknown or already accepted invitation is 404."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin")
  .annotateMerge(groupDocs(
    "The team: members with their roles, and invitations (admin; an API key or a session is required, else 401).",
    "Roles: `owner` (everything), `admin` (everything but the team and the organization's settings), `editor` " +
      "(incidents, maintenance, component statuses, templates; reads the rest), `viewer` (reads only). Each " +
      "operation names the least role it needs (`x-required-role`); a request below it is **403** `Forbidden`."
  ))
{}
