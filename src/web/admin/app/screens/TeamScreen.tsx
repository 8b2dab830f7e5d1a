/**
 * The team: its members with their roles, the open invitations, and, for owners, changing a
 * member's role, disabling, enabling and deleting them, inviting someone and revoking an
 * invitation. The server keeps one enabled owner at least; its refusal shows in the row.
 */
import { useState } from "preact/hooks"

import { everyItem } from "../../../../client/Pages.js"
import { type Role, roles } from "../../../../domain/Role.js"
import type { Invitation, TeamMember } from "../../../../domain/Team.js"
import { roleDescription, roleLabel, useAccess, useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { ConfirmButton, FailureMessage, WhenText } from "../ui/feedback.js"
import { SelectField, TextField } from "../ui/fields.js"
import { useListScreen, useLoad, useSubmit } from "../ui/requests.js"
import { NewSection, ResourceForm, ResourcePage, ResourceTable, useRowActions } from "../ui/resources.js"

const roleChoices = roles.map((role) => ({ value: role, label: roleLabel[role] }))

const MemberRow = (props: {
  readonly member: TeamMember
  readonly you: boolean
  readonly onChanged: (message: string) => void
  readonly reload: () => void
}) => {
  const { member } = props
  const can = useCan()
  const { failure, act } = useRowActions(props.onChanged)
  const who = `${member.name} (${member.email})`

  const changeRole = async (role: Role) => {
    const outcome = await act(
      (api) => api.team.updateUser({ params: { id: member.id }, payload: { role } }),
      () => `${member.name} is now ${roleLabel[role].toLowerCase()}.`
    )
    // Refused (the last owner): the menu shows a role the server did not take; show the stored one.
    if (!outcome.ok) props.reload()
  }
  const setDisabled = (disabled: boolean) =>
    act(
      (api) => api.team.updateUser({ params: { id: member.id }, payload: { disabled } }),
      () => disabled ? `${member.name} was disabled: their sessions ended.` : `${member.name} was enabled.`
    )
  const remove = () =>
    act((api) => api.team.removeUser({ params: { id: member.id } }), () => `${member.name} was deleted.`)

  return (
    <tr>
      <th scope="row">
        {member.name}
        {props.you && <span class="badge">you</span>}
        <p class="small muted">{member.email}</p>
        <FailureMessage failure={failure} />
      </th>
      <td>
        {can("team.updateUser")
          ? (
            <select
              class="role"
              aria-label={`Role of ${who}`}
              value={member.role}
              onChange={(event) => changeRole(event.currentTarget.value as Role)}
            >
              {roleChoices.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
            </select>
          )
          : roleLabel[member.role]}
      </td>
      <td>{member.disabled ? <span class="badge bad">Disabled</span> : <span class="badge ok">Enabled</span>}</td>
      {(can("team.updateUser") || can("team.removeUser")) && (
        <td class="row-actions">
          {can("team.updateUser") && (
            <button
              type="button"
              aria-label={`${member.disabled ? "Enable" : "Disable"} ${who}`}
              onClick={() => setDisabled(!member.disabled)}
            >
              {member.disabled ? "Enable" : "Disable"}
            </button>
          )}
          {can("team.removeUser") && (
            <ConfirmButton
              label="Delete"
              name={`Delete ${who}`}
              confirmLabel={`Yes, delete ${who}`}
              onConfirm={remove}
            />
          )}
        </td>
      )}
    </tr>
  )
}

const InvitationRow = (props: { readonly invitation: Invitation; readonly onChanged: (message: string) => void }) => {
  const { invitation } = props
  const can = useCan()
  const { failure, act } = useRowActions(props.onChanged)
  const expired = Date.parse(invitation.expiresAt) <= Date.now()
  const revoke = () =>
    act(
      (api) => api.team.revokeInvitation({ params: { id: invitation.id } }),
      () => `The invitation of ${invitation.email} was revoked.`
    )
  return (
    <tr>
      <th scope="row">
        {invitation.email}
        <FailureMessage failure={failure} />
      </th>
      <td>{roleLabel[invitation.role]}</td>
      <td>{invitation.invitedBy ?? <span class="muted">a former member</span>}</td>
      <td>
        {expired ? <span class="badge bad">Expired</span> : <WhenText at={invitation.expiresAt} />}
      </td>
      {can("team.revokeInvitation") && (
        <td>
          <ConfirmButton
            label="Revoke"
            name={`Revoke the invitation of ${invitation.email}`}
            confirmLabel={`Yes, revoke the invitation of ${invitation.email}`}
            onConfirm={revoke}
          />
        </td>
      )}
    </tr>
  )
}

const InviteForm = (props: { readonly onInvited: (invitation: Invitation) => void }) => {
  const [email, setEmail] = useState("")
  const [role, setRole] = useState<Role>("viewer")
  const { failure, busy, submit, fieldError } = useSubmit()

  const invite = async () => {
    const outcome = await submit((api) => api.team.invite({ payload: { email: email.trim(), role } }))
    if (outcome.ok) {
      setEmail("")
      props.onInvited(outcome.value)
    }
  }

  return (
    <ResourceForm id="invite" failure={failure} busy={busy} submitLabel="Send invitation" onSubmit={invite}>
      <TextField
        id="invite-email"
        label="E-mail"
        type="email"
        inputMode="email"
        autoComplete="off"
        required
        value={email}
        onInput={setEmail}
        hint="They receive a link that works for 72 hours; inviting the address again sends a new one."
        error={fieldError("email")}
      />
      <SelectField
        id="invite-role"
        label="Role"
        value={role}
        options={roleChoices}
        onChange={setRole}
        hint={`${roleLabel[role]}: ${roleDescription[role]}.`}
        error={fieldError("role")}
      />
    </ResourceForm>
  )
}

const TeamView = () => {
  const can = useCan()
  const members = useListScreen((api) => everyItem(api.team.listUsers))
  const [invitations, reloadInvitations] = useLoad((api) => everyItem(api.team.listInvitations))
  const { userId } = useAccess()
  const owner = can("team.updateUser") || can("team.removeUser")

  const invitationsChanged = (message: string) => {
    members.changed(message)
    void reloadInvitations()
  }

  return (
    <ResourcePage title="Team" message={members.message}>
      <ResourceTable
        loaded={members.loaded}
        caption="Members"
        columns={["Member", "Role", "State", ...(owner ? ["Actions"] : [])]}
        empty="No members."
      >
        {(member) => (
          <MemberRow
            key={member.id}
            member={member}
            you={member.id === userId}
            onChanged={members.changed}
            reload={members.reload}
          />
        )}
      </ResourceTable>
      <section aria-labelledby="invitations-title">
        <h2 id="invitations-title">Open invitations</h2>
        <ResourceTable
          loaded={invitations}
          caption="Open invitations"
          columns={[
            "E-mail",
            "Role",
            "Invited by",
            "Link works until",
            ...(can("team.revokeInvitation") ? ["Actions"] : [])
          ]}
          empty="No open invitations. Invite a colleague below: they get a link by e-mail."
        >
          {(invitation) => <InvitationRow key={invitation.id} invitation={invitation} onChanged={invitationsChanged} />}
        </ResourceTable>
      </section>
      {can("team.invite") && (
        <NewSection id="invite" title="Invite">
          <InviteForm
            onInvited={(invitation) => invitationsChanged(`An invitation was sent to ${invitation.email}.`)}
          />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const TeamScreen: Screen = {
  path: "team",
  group: "team",
  title: "Team",
  needs: "team.listUsers",
  View: TeamView
}
