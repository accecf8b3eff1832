/** policy/autonomy.rules — every write's guard, and which writes may skip approval (SPEC §3.6). */
export const AUTONOMY_RULES = `% Writes and approval. The team edits this file in the memory workspace (policy/autonomy.rules).

% Facts the runtime sets at the start of every run.
base current_user(User).
base today(Date).
base team_timezone(Zone).
base team_setting(Name, Value).

% Every write tool has a guard. These have no precondition beyond a person's approval;
% send_message's guard is in messaging.rules.
create_contact requires true.
update_contact requires true.
delete_contact requires true.
send_email requires true.
create_calendar_event requires true.
create_task requires true.
update_task requires true.
delete_task requires true.
escalate requires true.
reply_to_sender requires true.

% Which writes may run without approval. Nothing that reaches someone new skips it by default.
%
% reply_to_sender is the assistant's answer to the team member who texted the company line, in the channel
% they chose (SPEC section 4). Its recipient is the conversation's own internal sender, never an argument,
% so this rule cannot be used to text anyone else.
autonomous reply_to_sender when true.

% Paging the on-call person skips approval only when the team turned that off
% (the runtime seeds team_setting(escalation_requires_approval, false) from ESCALATION_REQUIRES_APPROVAL).
autonomous escalate when team_setting(escalation_requires_approval, false).

% A team that wants, for example, short acknowledgements to its own members to go out directly adds
% (see docs/POLICY.md):
%
%   autonomous send_message(To, Text)
%     when internal_contact(To), length(Text, N), N <= 160, contains(Text, "got it").
`;
