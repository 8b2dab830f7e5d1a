/**
 * The four roles of a team (docs/authentication.md, "Roles"), from most to least trusted:
 *
 * - `owner`: everything, including users, invitations and the organization's settings;
 * - `admin`: everything but users, invitations and the organization's settings;
 * - `editor`: incidents, maintenance, component statuses and templates; reads the rest;
 * - `viewer`: reads the admin side, changes nothing.
 *
 * Every admin operation declares the least role it needs (`RequiredRole`, an annotation of its
 * endpoint); Authentication refuses a principal below it with 403.
 */
import { Context, Schema } from "effect"

export const roles = ["owner", "admin", "editor", "viewer"] as const
export const Role = Schema.Literals(roles).annotate({
  description: "owner (everything), admin (everything but users and the organization's settings), editor " +
    "(incidents, maintenance, component statuses, templates; reads the rest) or viewer (reads only)"
})
export type Role = typeof Role.Type

/** owner 3, admin 2, editor 1, viewer 0. */
const rank = (role: Role): number => roles.length - 1 - roles.indexOf(role)

/** Whether `role` may do what `needed` may. */
export const atLeast = (role: Role, needed: Role): boolean => rank(role) >= rank(needed)

/** The lower of two roles: a key can do no more than its creator. */
export const lowerOf = (a: Role, b: Role): Role => rank(a) <= rank(b) ? a : b

/** The least role an admin endpoint needs: an annotation of the endpoint, read by Authentication. */
export class RequiredRole extends Context.Service<RequiredRole, Role>()("RequiredRole") {}

/**
 * An endpoint of the caller's own account (password, sessions): only a session may use it, never
 * an API key, whatever its role. An annotation of the endpoint, read by Authentication.
 */
export class SessionOnly extends Context.Service<SessionOnly, true>()("SessionOnly") {}

/** The OpenAPI extension naming an operation's least role (`x-required-role`). */
export const requiredRoleExtension = "x-required-role"
