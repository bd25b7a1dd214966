DROP VIEW revision_totals;
