// Condition types Stowage sets on objects' status.conditions beyond upstream's own.

/** On a claim: status "False" while the claim cannot be bound, with why (Stowage's own). */
export const conditionBindable = 'Bindable';
