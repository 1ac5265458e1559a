"""The reliability suite: properties measured under malformed, hostile and faulty input."""
