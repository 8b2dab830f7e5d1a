/**
 * The French catalogue (src/i18n/messages/en.ts defines the keys). French typography puts a
 * no-break space (U+00A0) before a colon and a question mark.
 */
import type { Messages } from "./en.js"
import { pluralFor } from "./Plural.js"

const plural = pluralFor("fr")

export const fr: Messages = {
  languageName: "Français",
  listSeparator: ", ",

  status: {
    component: {
      operational: "Opérationnel",
      degraded: "Performances dégradées",
      partial_outage: "Panne partielle",
      major_outage: "Panne majeure",
      maintenance: "En maintenance"
    },
    overall: {
      operational: "Tous les systèmes sont opérationnels",
      degraded: "Performances dégradées",
      partial_outage: "Panne partielle",
      major_outage: "Panne majeure",
      maintenance: "Maintenance en cours"
    },
    incident: {
      investigating: "En cours d’analyse",
      identified: "Cause identifiée",
      monitoring: "Sous surveillance",
      resolved: "Résolu"
    },
    maintenance: {
      scheduled: "Planifiée",
      in_progress: "En cours",
      completed: "Terminée",
      cancelled: "Annulée"
    },
    severity: {
      none: "Aucun impact",
      minor: "Impact mineur",
      major: "Impact majeur",
      critical: "Impact critique"
    }
  },

  layout: {
    statusTitle: (name) => `État des services ${name}`,
    pageTitle: (title, name) => `${title} · État des services ${name}`,
    rssTitle: (name) => `État des services ${name} (RSS)`,
    atomTitle: (name) => `État des services ${name} (Atom)`,
    skip: "Aller au contenu",
    brandSuffix: " – état des services",
    followUpdates: "Suivre les mises à jour\u00a0:",
    rss: "RSS",
    atom: "Atom",
    history: "Historique des incidents",
    jsonApi: "API JSON",
    languages: "Langues",
    links: "Liens"
  },

  page: {
    backToStatus: "Retour à l’état actuel",
    activeIncidents: "Incidents en cours",
    maintenance: "Maintenance",
    components: "Composants",
    noComponents: "Aucun composant n’est encore listé.",
    recentHistory: "Historique récent",
    noRecentIncidents: "Aucun incident signalé récemment.",
    allPastIncidents: "Tous les incidents passés",
    updated: (time) => `Mis à jour le ${time}`,
    posted: (time) => `Publié le ${time}`,
    window: (from, to) => `Du ${from} au ${to}`,
    componentCount: (n) => plural(n, { one: `${n} composant`, many: `${n} de composants`, other: `${n} composants` }),
    ofGroup: (group) => ` de ${group}`,
    affects: (names) => `concerne ${names}`,
    opened: (time) => `Ouvert le ${time}`,
    resolved: (time) => `résolu le ${time}`,
    updates: "Mises à jour",
    postmortem: "Post-mortem",
    published: (time) => `Publié le ${time}`,
    plannedMaintenance: "Maintenance planifiée",
    fromTo: (from, to) => `Du ${from} au ${to}`,
    details: "Détails",
    historyTitle: "Historique des incidents",
    noIncidents: "Aucun incident n’a été signalé.",
    historyPages: "Pages de l’historique",
    newer: "Incidents plus récents",
    older: "Incidents plus anciens",
    pageOf: (page, pages) => `Page ${page} sur ${pages}`
  },

  subscribe: {
    title: "Recevoir les mises à jour par e-mail",
    email: "Adresse e-mail",
    components: "Composants",
    tickNone: "Ne cochez rien pour être informé de tous les composants.",
    allOf: (group) => `Tout le groupe ${group}`,
    submit: "S’abonner",
    feeds: (rss, atom) =>
      `Nous envoyons d’abord un lien de confirmation. Vous pouvez aussi suivre le flux ${rss} ou ${atom}.`
  },

  preferences: {
    title: "Votre abonnement",
    sentTo: (email) => `Les mises à jour des incidents et des maintenances sont envoyées à ${email}.`,
    noneListed:
      "Aucun des composants que vous avez choisis n’est plus listé\u00a0: vous ne recevez que les mises à jour qui ne nomment aucun composant. Cochez-en, ou enregistrez sans rien cocher pour être informé de tous.",
    noComponents: "Aucun composant n’est listé\u00a0: vous recevez toutes les mises à jour.",
    choose: "Choisissez ce dont vous êtes informé",
    unnamedReachAll: "Une mise à jour qui ne nomme aucun composant est envoyée à tous les abonnés.",
    save: "Enregistrer les choix",
    stop: "Arrêter toutes les mises à jour",
    unsubscribe: (email) => `Désabonner ${email}`
  },

  forms: {
    notFound: "Introuvable",
    unavailable: "La page d’état démarre ou ne joint pas sa base de données. Réessayez dans un instant.",
    notSentTitle: "Non envoyé",
    notSent: "Ce formulaire ne peut être envoyé que depuis cette page d’état.",
    invalidEmail: "Saisissez une adresse e-mail, par exemple name@example.com.",
    componentsRefused: "Choisissez parmi les composants listés\u00a0: l’un d’eux n’est plus proposé.",
    tooManyComponents: (max) => `Choisissez au plus ${max} composants, ou aucun pour être informé de tous.`,
    tooManyRequests: "Trop de demandes d’abonnement. Veuillez réessayer plus tard.",
    subscribeAccepted: "Merci. Si cette adresse n’est pas encore abonnée, un lien de confirmation lui a été envoyé.",
    linkNotValidTitle: "Lien non valide",
    confirmationNotValid:
      "Ce lien de confirmation est inconnu, déjà utilisé ou expiré. Abonnez-vous de nouveau pour en recevoir un autre.",
    confirmTitle: "Confirmez votre abonnement",
    confirm: "Confirmez pour recevoir par e-mail les mises à jour des incidents et des maintenances.",
    confirmButton: "Confirmer l’abonnement",
    confirmedTitle: "Abonnement confirmé",
    confirmed: (email) => `${email} recevra désormais les mises à jour des incidents et des maintenances.`,
    linkNotValid:
      "Aucun abonnement ne correspond à ce lien\u00a0: il a peut-être déjà pris fin. Utilisez le lien du dernier e-mail.",
    linkIncomplete: "Ce lien est incomplet. Utilisez le lien du dernier e-mail.",
    savedEvery: "Enregistré\u00a0: vous êtes informé de tous les composants.",
    savedSome: (names) =>
      `Enregistré\u00a0: vous êtes informé de ${names}, ainsi que des mises à jour qui ne nomment aucun composant.`,
    unsubscribedTitle: "Désabonné",
    unsubscribed: (email) => `${email} ne recevra plus de mises à jour.`,
    unsubscribeTitle: "Se désabonner",
    unsubscribeAsk: (email) => `Ne plus envoyer de mises à jour à ${email}\u00a0?`,
    unsubscribeButton: (email) => `Désabonner ${email}`,
    unsubscribeLinkIncomplete: "Ce lien de désabonnement est incomplet. Utilisez le lien du dernier e-mail.",
    notUnsubscribedTitle: "Non désabonné",
    notUnsubscribed: "Aucun abonnement ne correspond à ce lien\u00a0: il a peut-être déjà pris fin."
  },

  access: {
    title: "Mot de passe requis",
    intro: "Cette page d’état est privée. Saisissez le mot de passe qui vous a été communiqué pour la consulter.",
    password: "Mot de passe",
    submit: "Ouvrir la page d’état",
    wrongPassword: "Ce mot de passe n’est pas correct. Vérifiez-le et réessayez.",
    tooManyTries: "Trop de tentatives. Patientez quelques minutes, puis réessayez."
  },

  uptime: {
    barLabel: (name) => `Disponibilité quotidienne de ${name}, de la plus ancienne à la plus récente`,
    groupBarLabel: (name) =>
      `Disponibilité quotidienne de ${name}, la plus basse de ses composants chaque jour, de la plus ancienne à la plus récente`,
    beforeComponent: "avant la création de ce composant",
    beforeComponents: "avant la création de ses composants",
    noData: "aucune donnée",
    dayUptime: (percent) => `${percent} de disponibilité`,
    lowest: " (son composant le plus bas)",
    day: (day, text) => `${day}\u00a0: ${text}`,
    withIncidents: (text, n, titles) =>
      `${text}\u00a0; ${plural(n, { one: "incident", other: "incidents" })}\u00a0: ${titles}`,
    daysAgo: (n) => plural(n, { one: `il y a ${n}\u00a0jour`, other: `il y a ${n}\u00a0jours` }),
    today: "Aujourd’hui",
    noDataYet: "Pas encore de données de disponibilité",
    overDays: (percent, days) => `${percent} de disponibilité sur ${days}\u00a0jours`,
    since: (percent, day) => `${percent} de disponibilité depuis le ${day}`,
    groupTotal: (total) => `${total}, son composant le plus bas`
  },

  responseTimes: {
    hoursAgo24: "il y a 24\u00a0h",
    hoursAgo12: "il y a 12\u00a0h",
    now: "Maintenant",
    title: (name) => `Temps de réponse de ${name}, dernières 24\u00a0heures`,
    description: (regions) =>
      `Le 95e centile des temps de réponse de chaque heure, une ligne par région (${regions}). Les valeurs suivent dans un tableau.`,
    caption: (name) => `Temps de réponse de ${name} par région, dernières 24\u00a0heures (95e centile par heure)`,
    region: "Région",
    latestHour: "Dernière heure",
    slowestHour: "Heure la plus lente",
    checks: "Vérifications",
    hourFrom: (value, time) => `${value} (heure commençant le ${time})`,
    none: "Temps de réponse\u00a0: aucune vérification n’a reçu de réponse au cours des dernières 24\u00a0heures.",
    figcaption: "Temps de réponse par région, 95e centile par heure, dernières 24\u00a0heures"
  },

  badge: {
    operational: "opérationnel",
    degraded: "performances dégradées",
    partial_outage: "panne partielle",
    major_outage: "panne majeure",
    maintenance: "en maintenance"
  },

  feeds: {
    description: (title) => `Incidents et maintenances de ${title}`,
    status: {
      investigating: "en cours d’analyse",
      identified: "cause identifiée",
      monitoring: "sous surveillance",
      resolved: "résolu",
      scheduled: "planifiée",
      in_progress: "en cours",
      completed: "terminée",
      cancelled: "annulée"
    },
    incidentTitle: (title, status) => `${title} (${status})`,
    update: (status, message) => `${status}\u00a0: ${message}`,
    maintenanceTitle: (title, status) => `Maintenance\u00a0: ${title} (${status})`,
    window: (from, to) => `${from} à ${to}`,
    withDescription: (window, description) => `${window}\u00a0: ${description}`,
    postmortem: "Post-mortem"
  },

  mail: {
    verifySubject: (name) => `Confirmez votre abonnement aux mises à jour de ${name}`,
    verifyAsked: (name, email) =>
      `Quelqu’un, vous sans doute, a demandé à recevoir les mises à jour de ${name} à l’adresse ${email}.`,
    verifyWithin: (hours) => `Confirmez dans les ${hours}\u00a0heures en ouvrant ce lien\u00a0:`,
    verifyLinkWithin: (link, hours) => `${link} dans les ${hours}\u00a0heures.`,
    verifyLink: "Confirmez votre abonnement",
    verifyIgnore: "Si vous n’avez rien demandé, ignorez ce message\u00a0: vous ne recevrez rien.",
    statusPage: (url) => `Page d’état\u00a0: ${url}`,
    viewStatusPage: "Voir la page d’état",
    why: (email, name) => `Vous recevez ce message car ${email} est abonné aux mises à jour de ${name}.`,
    chooseAt: (url) => `Choisissez les composants dont vous êtes informé\u00a0: ${url}`,
    unsubscribeAt: (url) => `Se désabonner\u00a0: ${url}`,
    choose: "Choisissez les composants dont vous êtes informé",
    unsubscribe: "Se désabonner",
    incidentHeadline: {
      "incident.created": "Nouvel incident",
      "incident.updated": "Incident mis à jour",
      "incident.resolved": "Incident résolu"
    },
    maintenanceHeadline: {
      "maintenance.scheduled": "Maintenance planifiée",
      "maintenance.started": "Maintenance commencée",
      "maintenance.completed": "Maintenance terminée",
      "maintenance.reminder": "La maintenance commence bientôt"
    },
    headline: (headline, title) => `${headline}\u00a0: ${title}`,
    testPrefix: "[Test] ",
    postmortemPublished: (title) => `Post-mortem publié\u00a0: ${title}`,
    window: (from, to) => `Du ${from} au ${to}`,
    reminder: (title, starts) => `Rappel\u00a0: la maintenance planifiée ${title} commence le ${starts}`,
    fact: (label, value) => `${label}\u00a0: ${value}`,
    facts: {
      status: "État",
      severity: "Gravité",
      starts: "Début",
      ends: "Fin",
      time: "Heure"
    },
    status: {
      investigating: "En cours d’analyse",
      identified: "Cause identifiée",
      monitoring: "Sous surveillance",
      resolved: "Résolu",
      scheduled: "Planifiée",
      in_progress: "En cours",
      completed: "Terminée",
      cancelled: "Annulée"
    },
    severity: {
      none: "Aucune",
      minor: "Mineure",
      major: "Majeure",
      critical: "Critique"
    }
  }
}
