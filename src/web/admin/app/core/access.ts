/**
 * What the signed-in user may do, read from the API declaration itself: each endpoint names the
 * least role it needs (`RequiredRole`), and `can(operation)` compares the user's role with it.
 * There is no second table here to fall out of step with the server; the server still decides
 * (a 403 shows as a failure), the dashboard only leaves out what would be refused.
 */
import { Context } from "effect"
import { HttpApi } from "effect/http-api"
import { createContext } from "preact"
import { useContext } from "preact/hooks"

import { Api } from "../../../../api/Api.js"
import type { Me } from "../../../../domain/Auth.js"
import { atLeast, RequiredRole, type Role } from "../../../../domain/Role.js"
import type { StatusPageId } from "../../../../domain/StatusPage.js"
import type { ApiClient } from "./api.js"

/** An operation as the OpenAPI document's operationId names it: `incidents.create`. */
export type OperationId = {
  [G in keyof ApiClient & string]: ApiClient[G] extends Record<string, unknown> ? `${G}.${keyof ApiClient[G] & string}`
    : never
}[keyof ApiClient & string]

const requiredRoles = new Map<string, Role>()
// The sign-in side (signing in, accepting an invitation) is audited too, though it needs no role.
const auditedOperations: Array<string> = []
HttpApi.reflect(Api, {
  onGroup: () => undefined,
  onEndpoint: ({ endpoint, group }) => {
    const id = `${group.identifier}.${endpoint.identifier}`
    const role = Context.getOption(endpoint.annotations, RequiredRole)
    if (role._tag === "Some") requiredRoles.set(id, role.value)
    if (role._tag === "Some" || group.identifier === "auth") auditedOperations.push(id)
  }
})

/** The least role `operation` needs; an admin endpoint that names none needs an owner, as the server has it. */
export const requiredRole = (operation: OperationId): Role => requiredRoles.get(operation) ?? "owner"

/** The operations of the API the audit log may name, for its filter. */
export const operationIds: ReadonlyArray<string> = auditedOperations.sort()

export interface Access {
  /** The signed-in user; null for a key the CLI made. */
  readonly userId: string | null
  readonly role: Role
  /** For an API key limited to some status pages, those; null for every page. */
  readonly pageIds: ReadonlyArray<StatusPageId> | null
}

export const accessOf = (me: Me): Access => ({ userId: me.user?.id ?? null, role: me.role, pageIds: me.pageIds })

export const canWith = (access: Access, operation: OperationId): boolean =>
  atLeast(access.role, requiredRole(operation))

// Read-only until the dashboard provides the signed-in user's access.
export const AccessContext = createContext<Access>({ userId: null, role: "viewer", pageIds: null })

export const useAccess = (): Access => useContext(AccessContext)

/** `can("components.create")`: whether the signed-in user's role allows the operation. */
export const useCan = () => {
  const access = useAccess()
  return (operation: OperationId): boolean => canWith(access, operation)
}

/** Whether the user may change the status page `id`, or create one (no id): a key may be limited to some pages. */
export const mayChangePage = (access: Access, id?: StatusPageId): boolean =>
  access.pageIds === null || (id !== undefined && access.pageIds.includes(id))

export const roleLabel: Record<Role, string> = { owner: "Owner", admin: "Admin", editor: "Editor", viewer: "Viewer" }

/** What each role may do, in the words of the roles' documentation. */
export const roleDescription: Record<Role, string> = {
  owner: "everything, including the team and the organization's settings",
  admin: "everything but the team and the organization's settings",
  editor: "incidents, maintenance, component statuses and templates; reads the rest",
  viewer: "reads everything, changes nothing"
}
