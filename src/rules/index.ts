export { createRulesModule, type RulesModule } from './module.ts';
export { matchesCname, parseRuleInput, RuleInputError, type RuleInput } from './rule.ts';
