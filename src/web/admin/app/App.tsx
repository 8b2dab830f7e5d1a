/**
 * The dashboard: who is signed in and with which role, the navigation built from the screen
 * registry (less the screens the role may not read) with the count of open incidents, and the
 * current screen, in the shell (`ui/Shell.tsx`). While signed in it keeps the live stream open
 * (core/live.ts) and knows the organization's time zone (core/timeZone.ts). Any 401 from the API (session expired or ended)
 * returns to the sign-in form. At `/admin/invitation#<token>` it shows the invitation first, and
 * enters signed in once it is accepted.
 */
import { useEffect, useLayoutEffect, useState } from "preact/hooks"

import type { Me } from "../../../domain/Auth.js"
import { AccessContext, accessOf, canWith, roleLabel } from "./core/access.js"
import { call, onSignedOut } from "./core/api.js"
import type { Failure } from "./core/failure.js"
import { useLiveConnection, useLiveRefresh } from "./core/live.js"
import { href, useRoute } from "./core/router.js"
import { operatorTimeZone, PageTimeZoneContext } from "./core/timeZone.js"
import { Invitation, readInvitationToken } from "./Invitation.js"
import { AccountScreen } from "./screens/AccountScreen.js"
import { IncidentsScreen } from "./screens/IncidentsScreen.js"
import { screens } from "./screens/registry.js"
import { SignIn } from "./SignIn.js"
import { FailureMessage } from "./ui/feedback.js"
import { useOpenIncidents } from "./ui/openIncidents.js"
import { Shell } from "./ui/Shell.js"

type Session = { readonly state: "checking" } | { readonly state: "signedOut" } | {
  readonly state: "signedIn"
  readonly me: Me
}

export const App = () => {
  // Read once, before anything renders: the token leaves the address bar at once.
  const [invitation, setInvitation] = useState(readInvitationToken)
  const [session, setSession] = useState<Session>({ state: "checking" })

  /** Who is signed in, with the role every screen hides actions by. */
  const enter = async () => {
    const outcome = await call((api) => api.auth.me())
    setSession(outcome.ok ? { state: "signedIn", me: outcome.value } : { state: "signedOut" })
  }

  useEffect(() => {
    if (invitation === null) void enter()
    return onSignedOut(() => setSession({ state: "signedOut" }))
  }, [])

  if (invitation !== null) {
    return (
      <Invitation
        token={invitation}
        onAccepted={() => {
          history.replaceState(null, "", "/admin")
          setInvitation(null)
          setSession({ state: "checking" })
          void enter()
        }}
      />
    )
  }

  switch (session.state) {
    case "checking":
      return (
        <main id="main" class="loading">
          <p aria-busy="true">Loading the dashboard…</p>
        </main>
      )
    case "signedOut":
      return (
        <SignIn
          onSignedIn={() => {
            setSession({ state: "checking" })
            void enter()
          }}
        />
      )
    case "signedIn":
      return (
        <AccessContext.Provider value={accessOf(session.me)}>
          <Dashboard me={session.me} onSignOut={() => setSession({ state: "signedOut" })} />
        </AccessContext.Provider>
      )
  }
}

/** The organization's time zone, for times on hover (core/timeZone.ts): read once, and again when it changes. */
const usePageTimeZoneOf = () => {
  const [zone, setZone] = useState(operatorTimeZone)
  const load = async () => {
    const outcome = await call((api) => api.organization.get())
    if (outcome.ok) setZone(outcome.value.timezone)
  }
  useEffect(() => void load(), [])
  useLiveRefresh(organizationKind, load)
  return zone
}

const organizationKind = ["organization"] as const

const Dashboard = (props: { readonly me: Me; readonly onSignOut: () => void }) => {
  const route = useRoute()
  const access = accessOf(props.me)
  // A screen the role may not read is neither listed nor opened by its address.
  const allowed = screens.filter((candidate) => canWith(access, candidate.needs))
  const screen = [...allowed, AccountScreen].find((candidate) => candidate.path === route) ?? allowed[0] ??
    AccountScreen
  const openIncidents = useOpenIncidents(route, canWith(access, "overview.get"))
  const pageTimeZone = usePageTimeZoneOf()
  useLiveConnection()
  const [signingOut, setSigningOut] = useState(false)
  const [signOutFailure, setSignOutFailure] = useState<Failure | null>(null)

  // Set in the same commit as the heading, so nothing (a screen reader, a test) reads the new
  // heading under the old title.
  useLayoutEffect(() => {
    document.title = `${screen.title} · Status admin`
  }, [screen])

  const signOut = async () => {
    setSigningOut(true)
    const outcome = await call((api) => api.auth.signOut())
    setSigningOut(false)
    // Only a session the server has ended counts as signed out (a 401 already means that).
    if (outcome.ok) props.onSignOut()
    else setSignOutFailure(outcome.failure)
  }

  const user = props.me.user
  return (
    <PageTimeZoneContext.Provider value={pageTimeZone}>
      <Shell
        screens={allowed}
        current={screen}
        counts={{
          [IncidentsScreen.path]: openIncidents === null ? null : { value: openIncidents, counts: "open" }
        }}
        account={
          <>
            <div class="account">
              {user && <span class="muted">{user.email}</span>}
              <span class="muted">Role: {roleLabel[props.me.role]}</span>
              {props.me.authenticatedBy === "session" && (
                <a
                  href={href(AccountScreen.path)}
                  aria-current={screen === AccountScreen ? "page" : undefined}
                >
                  {AccountScreen.title}
                </a>
              )}
              <button type="button" onClick={signOut} disabled={signingOut}>Sign out</button>
            </div>
            <FailureMessage failure={signOutFailure} />
          </>
        }
      >
        <screen.View key={screen.path} />
      </Shell>
    </PageTimeZoneContext.Provider>
  )
}
