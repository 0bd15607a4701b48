/** The contract moved to core (core/module-services.ts), which declares it; modules import it from here as before. */
export * from '../core/module-services';
