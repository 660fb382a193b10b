"""The app's engine: everything the pages compute, Streamlit-free.

A solver's child process, the share link's parser, the command line's film and the tests import
these modules without a server; ``ui/`` draws what they compute.
"""
