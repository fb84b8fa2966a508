/** Resolves an account's plan name to its limits, from the validated config. */
import type { Plan, Plans } from './plans';

export class PlanResolver {
  constructor(
    private readonly plans: Plans,
    private readonly defaultPlan: string,
  ) {}

  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.plans, name);
  }

  names(): string[] {
    return Object.keys(this.plans);
  }

  /** Limits of a plan; a plan no longer configured falls back to the default plan. */
  limits(name: string | null): Plan {
    if (name !== null && this.has(name)) return this.plans[name];
    return this.plans[this.defaultPlan];
  }
}
