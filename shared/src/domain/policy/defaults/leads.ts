/** policy/leads.rules — which rental leads qualify (SPEC §3.6). */
export const LEADS_RULES = `% Rental leads. The team edits this file in the memory workspace (policy/leads.rules).

context lead_of_interest "The rental lead this conversation is about (their contact id or email address)".

% Lead facts are recorded from the lead's application when it is read, or asked of a person.
askable credit_score(Lead, Score) "What is {Lead}'s credit score?".
askable pet(Lead, Kind) "Does {Lead} have pets? Answer with each kind (dog, cat, ...) or none.".
askable credit_review_passed(Lead) "{Lead}'s credit score is between 600 and 669. Having reviewed the application, do you accept it?".
askable pet_approved(Lead, Kind) "{Lead} has a {Kind}. Is that pet acceptable?".

% Credit: below 600 does not qualify, 670 or more does, 600-669 needs a person's review.
credit_band(Lead, low) :- credit_score(Lead, S), S < 600.
credit_band(Lead, review) :- credit_score(Lead, S), S >= 600, S < 670.
credit_band(Lead, good) :- credit_score(Lead, S), S >= 670.

credit_ok(Lead) :- credit_band(Lead, good).
credit_ok(Lead) :- credit_band(Lead, review), credit_review_passed(Lead).

% Pets: dogs are not allowed, cats are fine, any other pet needs a person's yes.
pet_rule(dog, refused).
pet_rule(cat, allowed).
pet_rule(none, allowed).
known_pet_kind(Kind) :- pet_rule(Kind, _).
pet_refused(Lead) :- pet(Lead, Kind), pet_rule(Kind, refused).
pet_unsettled(Lead) :- pet(Lead, Kind), not known_pet_kind(Kind), not pet_approved(Lead, Kind).
pets_ok(Lead) :- pet(Lead, _), not pet_refused(Lead), not pet_unsettled(Lead).

% Why a lead is out. Checked first, so a lead with a dog is turned down without asking for a credit review.
disqualified(Lead, credit_below_600) :- credit_band(Lead, low).
disqualified(Lead, Kind) :- pet(Lead, Kind), pet_rule(Kind, refused).

qualified_lead(Lead) :- credit_score(Lead, _), not disqualified(Lead, _), credit_ok(Lead), pets_ok(Lead).
`;
