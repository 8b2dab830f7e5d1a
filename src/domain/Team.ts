/**
 * The team (docs/authentication.md, "Team"): its members with their roles, the invitations that
 * bring new ones in, and each member's own sessions.
 */
import { Schema } from "effect"

import { UserId } from "./Auth.js"
import { Id, Name, Text } from "./Fields.js"
import { Class } from "./Named.js"
import { Role } from "./Role.js"
import { EmailAddress } from "./Subscriber.js"

/** A member of the team as owners manage them. */
export class TeamMember extends Class<TeamMember>("TeamMember")({
  id: UserId,
  email: Schema.String,
  name: Schema.String,
  role: Role,
  /** A disabled member cannot sign in; their sessions ended and their keys stopped working when they were disabled. */
  disabled: Schema.Boolean,
  createdAt: Schema.String
}) {}

/** `PATCH /api/v1/admin/users/{id}`: a new role, or disabling (true) or enabling (false) the member. */
export class UpdateTeamMember extends Class<UpdateTeamMember>("UpdateTeamMember")({
  role: Schema.optionalKey(Role),
  disabled: Schema.optionalKey(Schema.Boolean)
}) {}

export const UserPath = Schema.Struct({ id: UserId })

export const InvitationId = Id("InvitationId")
export type InvitationId = typeof InvitationId.Type

export class Invitation extends Class<Invitation>("Invitation")({
  id: InvitationId,
  email: Schema.String,
  role: Role,
  /** The name of the owner who sent it, or null when they are gone. */
  invitedBy: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  /** The link stops working 72 hours after it was sent. */
  expiresAt: Schema.String
}) {}

export class Invite extends Class<Invite>("Invite")({
  email: EmailAddress,
  role: Role
}) {}

/** An invitation link's token: 43 characters of base64url (256 random bits). */
export const InvitationToken = Text(128)

/** What the page an invitation link opens shows before it is accepted. */
export class InvitationPreview extends Class<InvitationPreview>("InvitationPreview")({
  email: Schema.String,
  role: Role,
  /** The address already has an account: accepting asks for its password, not a new one. */
  existingAccount: Schema.Boolean,
  expiresAt: Schema.String
}) {}

export class InspectInvitation extends Class<InspectInvitation>("InspectInvitation")({
  token: InvitationToken
}) {}

/**
 * Accepting an invitation: a new account gives its `name` and a `password` (at least 12
 * characters); an existing account gives its password, which signs it in with the invitation's role.
 */
export class AcceptInvitation extends Class<AcceptInvitation>("AcceptInvitation")({
  token: InvitationToken,
  name: Schema.optionalKey(Name(200)),
  password: Text(1024)
}) {}

export class ChangePassword extends Class<ChangePassword>("ChangePassword")({
  currentPassword: Text(1024),
  newPassword: Text(1024)
}) {}

/** One of the signed-in user's own sessions. */
export class OwnSession extends Class<OwnSession>("OwnSession")({
  id: Schema.String,
  createdAt: Schema.String,
  lastSeenAt: Schema.String,
  expiresAt: Schema.String,
  clientAddress: Schema.NullOr(Schema.String),
  /** The session the request was made with. */
  current: Schema.Boolean
}) {}

export const SessionPath = Schema.Struct({ id: Text(100) })
