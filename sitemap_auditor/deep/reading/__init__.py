"""The deep audit's reading of a sitemap's entries (entries.py), through the Lambda's bounded
parser."""
