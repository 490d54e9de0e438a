-- What a webhook receives (POST /webhook/configure's filters, issue 34):
-- events whose tags (schemas/eventfilter: event type, classifier,
-- milestone kinds) meet the filters, and the alert kinds listed. NULL
-- lists select every event; an empty event-type list selects none (alerts
-- only). No alert kind: no alert, as every webhook configured before.
ALTER TABLE webhooks
    ADD COLUMN filter_event_types     text[],
    ADD COLUMN filter_classifiers     text[],
    ADD COLUMN filter_milestones_only boolean NOT NULL DEFAULT false,
    ADD COLUMN alert_types            text[] NOT NULL DEFAULT '{}';

-- ETA_CHANGED is delivered when the estimate moved at least this many
-- minutes: the subscription's threshold, else the account's, else 360.
-- LFD_APPROACHING is raised this many days before the last free day
-- (the account's, else 2).
ALTER TABLE accounts
    ADD COLUMN eta_threshold_minutes integer CHECK (eta_threshold_minutes >= 0),
    ADD COLUMN lfd_warning_days      integer CHECK (lfd_warning_days >= 0);
ALTER TABLE subscriptions
    ADD COLUMN eta_threshold_minutes integer CHECK (eta_threshold_minutes >= 0);

-- The feed keeps every event and alert; a reader's filters are applied
-- when it reads: tags of an event (NULL for rows written before, which
-- every event filter lets through), the kind and ETA move of an alert
-- (alert_type NULL for events).
ALTER TABLE feed_events
    ADD COLUMN tags           text[],
    ADD COLUMN alert_type     text,
    ADD COLUMN change_minutes integer;
