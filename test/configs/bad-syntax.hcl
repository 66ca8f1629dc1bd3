# Scenario 6: an unknown attribute and a syntax error.
epoch = "1s"
colour = "blue"
budgets {
