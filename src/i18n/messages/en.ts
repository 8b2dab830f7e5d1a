/**
 * The English catalogue, which defines the catalogue: every other language is a `Messages` of its
 * own (TypeScript refuses a missing or extra key, test/i18n/catalogues.unit.test.ts checks the
 * same at run time). Messages with values are functions; their values come in already formatted
 * (times, names, links), and the renderer escapes them, so a message holds no markup of its own.
 * Catalogue text never contains `<`, `>`, `&` or `"`.
 */
import { pluralFor } from "./Plural.js"

const plural = pluralFor("en")

export const en = {
  /** The language's own name, as the footer's language links show it. */
  languageName: "English",
  /** Between the names of a list (components). */
  listSeparator: ", ",

  status: {
    component: {
      operational: "Operational",
      degraded: "Degraded performance",
      partial_outage: "Partial outage",
      major_outage: "Major outage",
      maintenance: "Under maintenance"
    },
    /** The overall banner's sentence for the worst component status. */
    overall: {
      operational: "All systems operational",
      degraded: "Degraded performance",
      partial_outage: "Partial outage",
      major_outage: "Major outage",
      maintenance: "Maintenance in progress"
    },
    incident: {
      investigating: "Investigating",
      identified: "Identified",
      monitoring: "Monitoring",
      resolved: "Resolved"
    },
    maintenance: {
      scheduled: "Scheduled",
      in_progress: "In progress",
      completed: "Completed",
      cancelled: "Cancelled"
    },
    severity: {
      none: "No impact",
      minor: "Minor impact",
      major: "Major impact",
      critical: "Critical impact"
    }
  },

  /** The frame of every page. */
  layout: {
    statusTitle: (name: string) => `${name} status`,
    /** The title of a sub-page: its own title, then the page's. */
    pageTitle: (title: string, name: string) => `${title} · ${name} status`,
    rssTitle: (name: string) => `${name} status (RSS)`,
    atomTitle: (name: string) => `${name} status (Atom)`,
    skip: "Skip to content",
    /** Read after the page's name in the header's link (visually hidden). */
    brandSuffix: " status",
    followUpdates: "Follow updates:",
    rss: "RSS",
    atom: "Atom",
    history: "Incident history",
    jsonApi: "JSON API",
    /** The label of the footer's language links. */
    languages: "Languages",
    /** The label of the operator's footer links. */
    links: "Links"
  },

  page: {
    backToStatus: "Back to the current status",
    activeIncidents: "Active incidents",
    maintenance: "Maintenance",
    components: "Components",
    noComponents: "No components are listed yet.",
    recentHistory: "Recent history",
    noRecentIncidents: "No incidents reported recently.",
    allPastIncidents: "All past incidents",
    updated: (time: string) => `Updated ${time}`,
    posted: (time: string) => `Posted ${time}`,
    /** A maintenance window's times in a list. */
    window: (from: string, to: string) => `${from} to ${to}`,
    componentCount: (n: number) => plural(n, { one: `${n} component`, other: `${n} components` }),
    /** Read after a group's component count (visually hidden). */
    ofGroup: (group: string) => ` of ${group}`,
    affects: (names: string) => `affects ${names}`,
    opened: (time: string) => `Opened ${time}`,
    resolved: (time: string) => `resolved ${time}`,
    updates: "Updates",
    postmortem: "Postmortem",
    published: (time: string) => `Published ${time}`,
    plannedMaintenance: "Planned maintenance",
    /** A maintenance window's times on its page. */
    fromTo: (from: string, to: string) => `From ${from} to ${to}`,
    details: "Details",
    historyTitle: "Incident history",
    noIncidents: "No incidents have been reported.",
    historyPages: "History pages",
    newer: "Newer incidents",
    older: "Older incidents",
    pageOf: (page: number, pages: number) => `Page ${page} of ${pages}`
  },

  subscribe: {
    title: "Get updates by e-mail",
    email: "E-mail address",
    components: "Components",
    tickNone: "Tick none to hear about every component.",
    allOf: (group: string) => `All of ${group}`,
    submit: "Subscribe",
    /** Under the form; `rss` and `atom` are the feeds' links. */
    feeds: (rss: string, atom: string) => `We send a confirmation link first. Or follow the ${rss} or ${atom} feed.`
  },

  /** The preferences page of a subscriber mail's link. */
  preferences: {
    title: "Your subscription",
    sentTo: (email: string) => `Incident and maintenance updates go to ${email}.`,
    noneListed:
      "None of the components you chose is listed any more: you hear only about updates that name no component. Tick some, or save with none ticked to hear about every one.",
    noComponents: "No components are listed: you hear about every update.",
    choose: "Choose what you hear about",
    unnamedReachAll: "An update that names no component reaches every subscriber.",
    save: "Save choices",
    stop: "Stop all updates",
    unsubscribe: (email: string) => `Unsubscribe ${email}`
  },

  /** The answers of the subscription forms and the e-mail links (titles and sentences). */
  forms: {
    notFound: "Not found",
    unavailable: "The status page is starting or cannot reach its database. Try again in a moment.",
    notSentTitle: "Not sent",
    notSent: "This form can only be sent from this status page.",
    invalidEmail: "Enter an e-mail address, such as name@example.com.",
    componentsRefused: "Choose among the listed components: one of these is no longer offered.",
    tooManyComponents: (max: number) => `Choose at most ${max} components, or none to hear about every one.`,
    tooManyRequests: "Too many subscription requests. Please try again later.",
    subscribeAccepted: "Thanks. If this address is not subscribed yet, a confirmation link is on its way to it.",
    linkNotValidTitle: "Link not valid",
    confirmationNotValid:
      "This confirmation link is unknown, already used or expired. Subscribe again to get a new one.",
    confirmTitle: "Confirm your subscription",
    confirm: "Confirm to receive incident and maintenance updates by e-mail.",
    confirmButton: "Confirm subscription",
    confirmedTitle: "Subscription confirmed",
    confirmed: (email: string) => `${email} will now receive incident and maintenance updates.`,
    linkNotValid: "No subscription matches this link: it may have ended already. Use the link from the latest e-mail.",
    linkIncomplete: "This link is incomplete. Use the link from the latest e-mail.",
    savedEvery: "Saved: you hear about every component.",
    savedSome: (names: string) => `Saved: you hear about ${names}, and about updates that name no component.`,
    unsubscribedTitle: "Unsubscribed",
    unsubscribed: (email: string) => `${email} will receive no more updates.`,
    unsubscribeTitle: "Unsubscribe",
    unsubscribeAsk: (email: string) => `Stop sending status updates to ${email}?`,
    unsubscribeButton: (email: string) => `Unsubscribe ${email}`,
    unsubscribeLinkIncomplete: "This unsubscribe link is incomplete. Use the link from the latest e-mail.",
    notUnsubscribedTitle: "Not unsubscribed",
    notUnsubscribed: "No subscription matches this link: it may have ended already."
  },

  /** The password form of a protected page. */
  access: {
    title: "Password required",
    intro: "This status page is private. Enter the password you were given to read it.",
    password: "Password",
    submit: "Open the status page",
    wrongPassword: "That password is not right. Check it and try again.",
    tooManyTries: "Too many tries. Wait a few minutes, then try again."
  },

  /** The 90-day uptime bars. */
  uptime: {
    barLabel: (name: string) => `Daily uptime of ${name}, oldest first`,
    groupBarLabel: (name: string) => `Daily uptime of ${name}, the lowest of its components each day, oldest first`,
    beforeComponent: "before this component existed",
    beforeComponents: "before its components existed",
    noData: "no data",
    dayUptime: (percent: string) => `${percent} uptime`,
    lowest: " (its lowest component)",
    /** A day of a bar: its date, then what it was. */
    day: (day: string, text: string) => `${day}: ${text}`,
    /** A day's text, then the titles of the incidents that touched it. */
    withIncidents: (text: string, n: number, titles: string) =>
      `${text}; ${plural(n, { one: "incident", other: "incidents" })}: ${titles}`,
    daysAgo: (n: number) => plural(n, { one: `${n} day ago`, other: `${n} days ago` }),
    today: "Today",
    noDataYet: "No uptime data yet",
    overDays: (percent: string, days: number) => `${percent} uptime over ${days} days`,
    since: (percent: string, day: string) => `${percent} uptime since ${day}`,
    /** A group's total, which is its lowest component's. */
    groupTotal: (total: string) => `${total}, its lowest component`
  },

  /** The response-time chart of a component. */
  responseTimes: {
    hoursAgo24: "24 h ago",
    hoursAgo12: "12 h ago",
    now: "Now",
    title: (name: string) => `Response times of ${name}, last 24 hours`,
    description: (regions: string) =>
      `The 95th percentile of each hour's response times, one line per region (${regions}). The figures follow in a table.`,
    caption: (name: string) => `Response times of ${name} by region, last 24 hours (95th percentile per hour)`,
    region: "Region",
    latestHour: "Latest hour",
    slowestHour: "Slowest hour",
    checks: "Checks",
    hourFrom: (value: string, time: string) => `${value} (hour from ${time})`,
    none: "Response times: no check answered in the last 24 hours.",
    figcaption: "Response time by region, 95th percentile per hour, last 24 hours"
  },

  /** The badge's status words, in lower case as badges write them. */
  badge: {
    operational: "operational",
    degraded: "degraded performance",
    partial_outage: "partial outage",
    major_outage: "major outage",
    maintenance: "under maintenance"
  },

  /** The feeds' own words. */
  feeds: {
    description: (title: string) => `Incidents and maintenance of ${title}`,
    status: {
      investigating: "investigating",
      identified: "identified",
      monitoring: "monitoring",
      resolved: "resolved",
      scheduled: "scheduled",
      in_progress: "in progress",
      completed: "completed",
      cancelled: "cancelled"
    },
    incidentTitle: (title: string, status: string) => `${title} (${status})`,
    /** The latest update of an incident: its status, then its message. */
    update: (status: string, message: string) => `${status}: ${message}`,
    maintenanceTitle: (title: string, status: string) => `Maintenance: ${title} (${status})`,
    window: (from: string, to: string) => `${from} to ${to}`,
    withDescription: (window: string, description: string) => `${window}: ${description}`,
    postmortem: "Postmortem"
  },

  /** Subscriber mail. */
  mail: {
    verifySubject: (name: string) => `Confirm your subscription to ${name} status updates`,
    verifyAsked: (name: string, email: string) =>
      `Someone, hopefully you, asked to receive status updates from ${name} at ${email}.`,
    verifyWithin: (hours: number) => `Confirm within ${hours} hours by opening this link:`,
    /** The HTML part: `link` is the confirmation link, whose text is `verifyLink`. */
    verifyLinkWithin: (link: string, hours: number) => `${link} within ${hours} hours.`,
    verifyLink: "Confirm your subscription",
    verifyIgnore: "If you did not ask for this, ignore this message: nothing will be sent to you.",
    statusPage: (url: string) => `Status page: ${url}`,
    viewStatusPage: "View the status page",
    why: (email: string, name: string) => `You receive this because ${email} subscribed to ${name} status updates.`,
    chooseAt: (url: string) => `Choose the components you hear about: ${url}`,
    unsubscribeAt: (url: string) => `Unsubscribe: ${url}`,
    choose: "Choose the components you hear about",
    unsubscribe: "Unsubscribe",
    incidentHeadline: {
      "incident.created": "New incident",
      "incident.updated": "Incident updated",
      "incident.resolved": "Incident resolved"
    },
    maintenanceHeadline: {
      "maintenance.scheduled": "Maintenance scheduled",
      "maintenance.started": "Maintenance started",
      "maintenance.completed": "Maintenance completed",
      "maintenance.reminder": "Maintenance starts soon"
    },
    headline: (headline: string, title: string) => `${headline}: ${title}`,
    testPrefix: "[Test] ",
    postmortemPublished: (title: string) => `Postmortem published: ${title}`,
    window: (from: string, to: string) => `From ${from} to ${to}`,
    reminder: (title: string, starts: string) => `Reminder: scheduled maintenance ${title} starts ${starts}`,
    /** A fact of the text part: its label, then its value. */
    fact: (label: string, value: string) => `${label}: ${value}`,
    facts: {
      status: "Status",
      severity: "Severity",
      starts: "Starts",
      ends: "Ends",
      time: "Time"
    },
    status: {
      investigating: "Investigating",
      identified: "Identified",
      monitoring: "Monitoring",
      resolved: "Resolved",
      scheduled: "Scheduled",
      in_progress: "In progress",
      completed: "Completed",
      cancelled: "Cancelled"
    },
    severity: {
      none: "None",
      minor: "Minor",
      major: "Major",
      critical: "Critical"
    }
  }
}

/** A language's catalogue: the English one's keys and message signatures. */
export type Messages = typeof en
