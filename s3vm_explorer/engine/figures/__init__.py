"""Pure functions from data and solver runs to plotly figures, one module by what they draw."""
