"""Off-policy evaluation: logged bandit feedback from a known stochastic logging policy in the
selection environment, the estimators, converters to other libraries' formats, and the ground
truth (the on-policy value of any policy) that checks them."""
