/** policy/messaging.rules — who may be texted, from which line, and when (SPEC §3.4, §3.6). */
export const MESSAGING_RULES = `% Messaging policy. The team edits this file in the memory workspace (policy/messaging.rules);
% docs/POLICY.md explains the language.

% Contacts come from OpenPhone through search_contacts. The search is fuzzy, so the binding keeps only
% contacts that carry exactly the number asked about: Phone is both the query and a filter on "phones".
bind contact(Phone, Id, Internal)
  from search_contacts(query: Phone)
  each "contacts[*]" { Phone: "phones[*]", Id: "id", Internal: "internal" }.
ttl contact 5m.

% A person's word that a text is urgent enough to go out during quiet hours (the triage may record it too).
askable urgent "It is quiet hours (21:00-08:00 team time) for external contacts. Is this urgent enough to text now?".
ttl urgent 1h.

known_contact(Phone) :- contact(Phone, _, _).
internal_contact(Phone) :- contact(Phone, _, true).
external_contact(Phone) :- contact(Phone, _, false).

% The sending line by contact type: team members hear from the assistant's own line,
% everyone else from the shared company line.
sending_line(Phone, assistant) :- internal_contact(Phone).
sending_line(Phone, shared) :- external_contact(Phone).

% Quiet hours for external contacts: 21:00 to 08:00 in the team's timezone (team_time follows DST).
quiet_hours :- team_time(H, _), H >= 21.
quiet_hours :- team_time(H, _), H < 8.

may_text_now(Phone) :- internal_contact(Phone).
may_text_now(Phone) :- external_contact(Phone), not quiet_hours.
may_text_now(Phone) :- external_contact(Phone), quiet_hours, urgent.

% The guard reads send_message's arguments by name: To is args.to, Text is args.text.
send_message(To, Text) requires known_contact(To), sending_line(To, Line), may_text_now(To).

% An unknown number asking about a unit is added as a prospect and answered from the shared line, on one
% card (welcome_contact: Phone is args.phone). It is not a contact yet, so only the hour is checked.
may_welcome_now :- not quiet_hours.
may_welcome_now :- quiet_hours, urgent.
welcome_contact(Phone, Text) requires may_welcome_now.
`;
