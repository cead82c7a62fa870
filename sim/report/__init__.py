"""HTML reports of a dataset, a comparison or a comparison of rule sets: the summary and the
figures, folded in one pass over the dataset."""
