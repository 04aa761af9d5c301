//! A submitted form (`application/x-www-form-urlencoded`), with repeated fields (a
//! multi-select's `label`) kept in order. The body was capped before it got here.

pub struct Form {
    fields: Vec<(String, String)>,
}

impl Form {
    pub fn parse(body: &[u8]) -> Form {
        Form {
            fields: form_urlencoded::parse(body).into_owned().collect(),
        }
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in order.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.fields
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_fields_keep_their_order() {
        let f = Form::parse(b"csrf=x&label=Add+tests&label=Update%20docs&answer=a%26b");
        assert_eq!(f.get("csrf"), Some("x"));
        assert_eq!(f.all("label"), ["Add tests", "Update docs"]);
        assert_eq!(f.get("answer"), Some("a&b"));
        assert_eq!(f.get("nope"), None);
    }
}
